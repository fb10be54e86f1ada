/**
 * A Gemini client's multimodal function response (`functionResponse` with `response` and `parts`):
 * to a Gemini 3 upstream the response object and each part's `displayName` — which the object
 * refers to, `{"$ref": "shot.png"}` — arrive as the client wrote them; to an upstream without JSON
 * results the object goes as JSON text beside the image.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => harness.emulator.clear());
afterAll(() => harness?.close());

const png =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const screenshot = { caption: 'home page', image: { $ref: 'shot.png' } };
const image = { inlineData: { mimeType: 'image/png', data: png, displayName: 'shot.png' } };

/** The client's request: a call of `shot` answered with `response` and the image in `parts`. */
function body(response: Record<string, unknown>) {
  return {
    contents: [
      { role: 'user', parts: [{ text: 'look' }] },
      {
        role: 'model',
        parts: [
          {
            functionCall: { id: 'c1', name: 'shot', args: {} },
            thoughtSignature: 'skip_thought_signature_validator',
          },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'shot', response, parts: [image] } }] },
    ],
    tools: [{ functionDeclarations: [{ name: 'shot', parameters: { type: 'OBJECT' } }] }],
  };
}

type Upstream = { contents?: Array<{ parts: Array<Record<string, unknown>> }>; messages?: unknown[] };

async function sent(alias: string, response: Record<string, unknown>, stream = false): Promise<Upstream> {
  harness.emulator.enqueue(scriptedText('ok'));
  const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  const reply = await harness.post(`/v1beta/models/${alias}:${method}`, body(response));
  expect(reply.status).toBe(200);
  await reply.text();
  return harness.emulator.requests.at(-1)!.body as Upstream;
}

it.each([false, true])(
  'Gemini 3 gets the response object and each part’s displayName as sent (streamed: %s)',
  async (stream) => {
    const upstream = await sent('up-gemini3', screenshot, stream);
    expect(upstream.contents!.at(-1)!.parts).toEqual([
      { functionResponse: { id: 'c1', name: 'shot', response: screenshot, parts: [image] } },
    ]);
  },
);

it('an {output: …} or {error: …} object beside media keeps its key (an error stays one)', async () => {
  const output = await sent('up-gemini3', { output: 'saved' });
  expect(output.contents!.at(-1)!.parts[0]!.functionResponse).toMatchObject({
    response: { output: 'saved' },
  });
  const object = await sent('up-gemini3', { output: { saved: true } });
  expect(object.contents!.at(-1)!.parts[0]!.functionResponse).toMatchObject({
    response: { output: { saved: true } },
  });
  const error = await sent('up-gemini3', { error: { code: 404 } });
  expect(error.contents!.at(-1)!.parts[0]!.functionResponse).toMatchObject({
    response: { error: { code: 404 } },
    parts: [image],
  });
});

it('Gemini 2.5 gets the object unchanged and the image as a sibling part (no displayName there)', async () => {
  const upstream = await sent('up-gemini', screenshot);
  const { displayName: _, ...inline } = image.inlineData;
  expect(upstream.contents!.at(-1)!.parts).toEqual([
    { functionResponse: { id: 'c1', name: 'shot', response: screenshot } },
    { inlineData: inline },
  ]);
});

it('Anthropic gets the object as JSON text beside the image in its tool_result', async () => {
  const upstream = await sent('up-anthropic', screenshot);
  const last = upstream.messages!.at(-1) as { content: Array<{ type: string; content: unknown }> };
  expect(last.content[0]).toMatchObject({
    type: 'tool_result',
    content: [
      { type: 'text', text: JSON.stringify(screenshot) },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
    ],
  });
});
