/**
 * A Gemini Files API URI (`https://generativelanguage.googleapis.com/v1beta/files/<name>`, what
 * `ai.files.upload()` returns) names a file in the project of the key that calls: toward the Gemini
 * upstream the operator's. So it is a 400 naming the client's field on every protocol where a URL
 * can carry one, as OpenAI and Anthropic file ids are, and nothing reaches the upstream.
 */
import { createPartFromUri } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClients, type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
let clients: ReturnType<typeof createClients>;
beforeAll(async () => {
  harness = await startGatewayHarness();
  clients = createClients(harness.server.url);
});
/** The requests the upstream had before this test: a refused request adds none. */
let sentBefore = 0;
beforeEach(() => {
  harness.emulator.clear();
  sentBefore = harness.emulator.requests.length;
});
afterAll(() => harness?.close());

const filesUri = 'https://generativelanguage.googleapis.com/v1beta/files/abc123xyz';

/** The error `call` failed with (an SDK's error), after checking nothing reached the upstream. */
async function refusal(call: () => Promise<unknown>): Promise<{ status?: number; message: string }> {
  const error = (await call().then(
    () => new Error('the call succeeded'),
    (failure: unknown) => failure,
  )) as { status?: number; message: string };
  expect(harness.emulator.requests).toHaveLength(sentBefore);
  return error;
}

describe('a Gemini Files API URI is refused', () => {
  it.each(['up-gemini', 'up-anthropic'])(
    'as a Gemini client’s fileData (createPartFromUri), toward %s',
    async (model) => {
      const error = await refusal(() =>
        clients.google.models.generateContent({
          model,
          contents: [
            { role: 'user', parts: [createPartFromUri(filesUri, 'application/pdf'), { text: 'summarize' }] },
          ],
        }),
      );
      expect(error.status).toBe(400);
      expect(error.message).toContain('contents.0.parts.0: a Gemini Files API URI is not supported');
    },
  );

  it.each([
    'https://generativelanguage.googleapis.com/v1/files/abc',
    'https://generativelanguage.googleapis.com/v1alpha/files/abc',
    'https://GenerativeLanguage.googleapis.com./v1beta/files/abc',
    'https://generativelanguage.googleapis.com:443/v1beta/%66iles/abc',
    'http://generativelanguage.mtls.googleapis.com/v1beta/files/abc',
  ])('in any API version or spelling: %s', async (uri) => {
    const error = await refusal(() =>
      clients.google.models.generateContent({
        model: 'up-gemini',
        contents: [{ role: 'user', parts: [createPartFromUri(uri, 'video/mp4'), { text: 'watch' }] }],
      }),
    );
    expect(error.status).toBe(400);
    expect(error.message).toContain('Gemini Files API URI');
  });

  it('as a Chat client’s image_url', async () => {
    const error = (await refusal(() =>
      clients.openai.chat.completions.create({
        model: 'up-gemini',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image_url', image_url: { url: filesUri } },
            ],
          },
        ],
      }),
    )) as { status?: number; message: string; param?: string };
    expect(error.status).toBe(400);
    expect(error.param).toBe('messages.0.content.1');
  });

  it.each([
    ['input_file file_url', { type: 'input_file', file_url: filesUri }],
    ['input_image image_url', { type: 'input_image', image_url: filesUri, detail: 'auto' }],
  ] as const)('as a Responses client’s %s', async (_, part) => {
    const error = (await refusal(() =>
      clients.openai.responses.create({
        model: 'up-gemini',
        store: false,
        input: [{ role: 'user', content: [part] }],
      }),
    )) as { status?: number; param?: string };
    expect(error.status).toBe(400);
    expect(error.param).toBe('input.0.content.0');
  });

  it('as an Anthropic client’s document and image url sources', async () => {
    for (const block of [
      { type: 'document' as const, source: { type: 'url' as const, url: filesUri } },
      { type: 'image' as const, source: { type: 'url' as const, url: filesUri } },
    ]) {
      const error = await refusal(() =>
        clients.anthropic.messages.create({
          model: 'up-gemini',
          max_tokens: 10,
          messages: [{ role: 'user', content: [block, { type: 'text', text: 'read' }] }],
        }),
      );
      expect(error.status).toBe(400);
      expect(error.message).toContain('messages.0.content.0: a Gemini Files API URI');
    }
  });

  it('inside a provider part of the native protocol (custom fileData)', async () => {
    const response = await harness.post('/switchyard/v1/stream', {
      model: 'up-gemini',
      transcript: [
        {
          kind: 'user',
          parts: [
            { type: 'text', text: 'look' },
            {
              type: 'custom',
              provider: 'gemini',
              kind: 'part',
              data: { fileData: { mimeType: 'application/pdf', fileUri: filesUri } },
            },
          ],
        },
      ],
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Gemini Files API URI');
    expect(harness.emulator.requests).toHaveLength(sentBefore);
  });

  it('a URL on another Google host still reaches the Gemini upstream', async () => {
    harness.emulator.enqueue(scriptedText('Read.'));
    const uri = 'https://storage.googleapis.com/public-bucket/files/report.pdf';
    await clients.google.models.generateContent({
      model: 'up-gemini',
      contents: [{ role: 'user', parts: [createPartFromUri(uri, 'application/pdf'), { text: 'summarize' }] }],
    });
    expect(JSON.stringify(harness.emulator.requests.at(-1)!.body)).toContain(uri);
  });
});
