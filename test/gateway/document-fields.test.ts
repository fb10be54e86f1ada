/**
 * An Anthropic client's `document` block keeps its `title`, `context` and `citations: {enabled:
 * true}` on the way to a Claude upstream (citations are asked per document: without the flag the
 * model cites nothing). Found by a reviewer: all three were dropped by the codec. Other providers,
 * which have no such fields, get the document as before (a title as its file name where they take one,
 * with the type's extension: OpenAI reads a file's type from its name).
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { anthropicClient, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
});
afterAll(() => harness.close());

const pdf = Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64');
const documents = [
  {
    type: 'document',
    source: { type: 'base64', media_type: 'application/pdf', data: pdf },
    title: 'Annual report',
    context: 'Written by the finance team',
    citations: { enabled: true },
  },
  {
    type: 'document',
    source: { type: 'text', media_type: 'text/plain', data: 'The grass is green.' },
    title: 'Notes',
    citations: { enabled: true },
  },
  { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Plain.' } },
];

async function send(model: string, blocks: object[] = documents): Promise<unknown[]> {
  const response = await harness.post(
    '/v1/messages',
    {
      model,
      max_tokens: 100,
      messages: [{ role: 'user', content: [...blocks, { type: 'text', text: 'Summarize.' }] }],
    },
    anthropicClient,
  );
  expect(response.status, await response.text()).toBe(200);
  const body = harness.emulator.requests.at(-1)!.body as Record<string, unknown>;
  return ((body.messages ?? body.input ?? body.contents) as Array<{ content?: unknown[] }>)[0]!.content ?? [];
}

it('Anthropic upstream: title, context and citations reach it as the client sent them', async () => {
  const content = (await send('up-anthropic')) as Array<Record<string, unknown>>;
  // Exactly the blocks the client sent, each field in place.
  expect(content.slice(0, 3)).toEqual(documents);
});

it('Chat upstream: no context or citation setting is invented; the title is the file name, with .pdf', async () => {
  const content = (await send('up-chat', documents.slice(0, 1))) as Array<Record<string, unknown>>;
  const text = JSON.stringify(content);
  expect(text).not.toContain('finance team');
  expect(text).not.toContain('"citations"');
  // OpenAI reads a file's type from its name: a title is no file name.
  expect(content[0]).toMatchObject({ type: 'file', file: { filename: 'Annual report.pdf' } });
});

it.each(['up-chat', 'up-responses'])(
  '%s: a PDF title gets .pdf unless it ends so (a dotted title is no extension)',
  async (model) => {
    const titled = (title: string) => ({ ...documents[0], title, context: undefined, citations: undefined });
    const content = (await send(model, [
      titled('Q3 Financial Report'),
      titled('Report v1.2'),
      titled('scan.PDF'),
    ])) as Array<{ filename?: string; file?: { filename: string } }>;
    expect(content.slice(0, 3).map((part) => part.filename ?? part.file?.filename)).toEqual([
      'Q3 Financial Report.pdf',
      'Report v1.2.pdf',
      'scan.PDF',
    ]);
  },
);

it('a citations setting that is not {enabled: boolean} is a 400 naming it', async () => {
  const response = await harness.post(
    '/v1/messages',
    {
      model: 'up-anthropic',
      max_tokens: 100,
      messages: [{ role: 'user', content: [{ ...documents[1], citations: { enabled: 'yes' } }] }],
    },
    anthropicClient,
  );
  expect(response.status).toBe(400);
  expect(await response.text()).toContain('messages.0.content.0.citations.enabled');
});

const csv = Buffer.from('a,b\n1,2\n').toString('base64');

it('Chat upstream: a text document is a text part headed by its title and context (Chat files are PDF only)', async () => {
  const content = (await send('up-chat', [
    { ...documents[1], context: 'From the garden' },
    documents[2]!,
  ])) as Array<Record<string, unknown>>;
  expect(content.slice(0, 2)).toEqual([
    { type: 'text', text: 'Document: Notes (From the garden)\n\nThe grass is green.' },
    { type: 'text', text: 'Document: text/plain\n\nPlain.' },
  ]);
});

it('Responses upstream: a text document is an input_file named with its extension; its context is left out with a WARN', async () => {
  const warnings = harness.logger.entries.length;
  const content = (await send('up-responses', [{ ...documents[1], context: 'From the garden' }])) as Array<
    Record<string, unknown>
  >;
  expect(content[0]).toEqual({
    type: 'input_file',
    filename: 'Notes.txt',
    file_data: `data:text/plain;base64,${Buffer.from('The grass is green.').toString('base64')}`,
  });
  expect(harness.logger.entries.slice(warnings).map((entry) => entry.message)).toContain(
    "left out a document's context: the provider's file part has no field for it",
  );
});

it('Gemini upstream: a text part before the document names its title and context', async () => {
  const content = (await send('up-gemini', [{ ...documents[1], context: 'From the garden' }])) as unknown[];
  const body = harness.emulator.requests.at(-1)!.body as { contents: Array<{ parts: unknown[] }> };
  expect(content).toEqual([]);
  expect(body.contents[0]!.parts.slice(0, 2)).toEqual([
    { text: 'Document: Notes (From the garden)' },
    { inlineData: { mimeType: 'text/plain', data: Buffer.from('The grass is green.').toString('base64') } },
  ]);
});

it('a Gemini client’s text/csv and a Responses client’s text/plain input_file reach OpenAI upstreams', async () => {
  const gemini = await harness.post(
    '/v1beta/models/up-chat:generateContent',
    {
      contents: [
        { role: 'user', parts: [{ text: 'Sum.' }, { inlineData: { mimeType: 'text/csv', data: csv } }] },
      ],
    },
    { 'x-goog-api-key': 'client-key' },
  );
  expect(gemini.status, await gemini.text()).toBe(200);
  const chat = harness.emulator.requests.at(-1)!.body as { messages: Array<{ content: unknown[] }> };
  expect(chat.messages[0]!.content).toContainEqual({
    type: 'text',
    text: 'Document: text/csv\n\na,b\n1,2\n',
  });
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
  const file = { type: 'input_file', filename: 'd.txt', file_data: `data:text/plain;base64,${csv}` };
  const responses = await harness.post(
    '/v1/responses',
    { model: 'up-responses', store: false, input: [{ role: 'user', content: [file] }] },
    { authorization: 'Bearer client-key' },
  );
  expect(responses.status, await responses.text()).toBe(200);
  const input = (harness.emulator.requests.at(-1)!.body as { input: Array<{ content: unknown[] }> }).input;
  expect(input[0]!.content).toContainEqual(file);
});
