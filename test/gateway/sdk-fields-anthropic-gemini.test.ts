/**
 * Request fields of the pinned `@anthropic-ai/sdk` (1.14) and `@google/genai` (3.3) that the gateway
 * did not know, each as the real SDK client sends it (docs/gateway.md, Anthropic Messages and
 * Gemini). Before, every one was dropped without a word: an Anthropic client's `inference_geo` was
 * served wherever the operator's upstream runs; a Gemini client's `logprobs`, `continuationToken`
 * and a video part's `videoMetadata` were answered as if absent; `imageConfig`,
 * `enableEnhancedCivicAnswers` and a part's `mediaResolution` never reached Gemini. Now the first
 * are 400s naming the field, the others reach the upstream that has them.
 */
import { expect, it } from 'vitest';
import { anthropicClient, createClients, scriptedText, useGatewayHarness } from './harness.ts';

const harness = useGatewayHarness();
const clients = () => createClients(harness.server.url);
/** The number of requests the upstreams have been sent (the emulator keeps every file's). */
const upstreamCalls = () => harness.emulator.requests.length;
const sent = () => harness.emulator.requests.at(-1)!.body as Record<string, unknown>;
const hi = [{ role: 'user' as const, content: 'Hi' }];
const pixel =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** The SDK's error as the client sees it: status and message. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  const error = (await call.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as { status?: number; message?: string } | undefined;
  return { status: error?.status ?? 200, message: error?.message ?? '' };
}

it('anthropic inference_geo is a 400 naming it, nothing sent upstream', async () => {
  const before = upstreamCalls();
  const result = await refusal(
    clients().anthropic.messages.create({
      model: 'up-anthropic',
      max_tokens: 20,
      messages: hi,
      inference_geo: 'us',
    }),
  );
  expect(result.status).toBe(400);
  expect(result.message).toContain('inference_geo');
  expect(upstreamCalls()).toBe(before);
});

it("anthropic inference_geo 'global' (the default, which the API's usage reports) promises nothing and is served", async () => {
  harness.emulator.enqueue(scriptedText());
  const message = await clients().anthropic.messages.create({
    model: 'up-anthropic',
    max_tokens: 20,
    messages: hi,
    inference_geo: 'global',
  });
  expect(message.content.length).toBeGreaterThan(0);
});

it('anthropic fields that do not change the answer are ignored, not a 400', async () => {
  harness.emulator.enqueue(scriptedText());
  const message = await clients().anthropic.messages.create({
    model: 'up-anthropic',
    max_tokens: 2000,
    speed: 'fast',
    diagnostics: { previous_message_id: 'msg_1' } as never,
    thinking: { type: 'enabled', budget_tokens: 1024, display: 'summarized' },
    tools: [
      {
        name: 'lookup',
        input_schema: { type: 'object', properties: {} },
        allowed_callers: ['direct'],
        eager_input_streaming: true,
        input_examples: [{}],
      },
    ],
    messages: [
      {
        role: 'user',
        content: [
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: pixel },
            transformations: {},
          },
          { type: 'text', text: 'Hi' },
        ],
      },
    ],
  });
  expect(message.content.length).toBeGreaterThan(0);
});

it('gemini logprobs is a 400 naming generationConfig.logprobs, nothing sent upstream', async () => {
  const before = upstreamCalls();
  const result = await refusal(
    clients().google.models.generateContent({ model: 'up-gemini', contents: 'Hi', config: { logprobs: 3 } }),
  );
  expect(result.status).toBe(400);
  expect(result.message).toContain('generationConfig.logprobs');
  expect(upstreamCalls()).toBe(before);
});

it('gemini continuationToken is a 400 naming it', async () => {
  const result = await refusal(
    clients().google.models.generateContent({
      model: 'up-gemini',
      contents: 'Hi',
      config: { continuationToken: 'token-1' },
    }),
  );
  expect(result.status).toBe(400);
  expect(result.message).toContain('continuationToken');
});

it('gemini videoMetadata on a video part is a 400 naming the part’s field', async () => {
  const result = await refusal(
    clients().google.models.generateContent({
      model: 'up-gemini',
      contents: [
        {
          role: 'user',
          parts: [
            {
              fileData: { fileUri: 'https://www.youtube.com/watch?v=9hE5-98ZeCg' },
              videoMetadata: { startOffset: '40s', endOffset: '80s' },
            },
            { text: 'Summarize this clip.' },
          ],
        },
      ],
    }),
  );
  expect(result.status).toBe(400);
  expect(result.message).toContain('contents.0.parts.0.videoMetadata');
});

it('gemini imageConfig and enableEnhancedCivicAnswers reach a Gemini upstream as written', async () => {
  harness.emulator.enqueue(scriptedText());
  await clients().google.models.generateContent({
    model: 'up-gemini',
    contents: 'Hi',
    config: { imageConfig: { aspectRatio: '16:9' }, enableEnhancedCivicAnswers: true },
  });
  expect(sent().generationConfig).toMatchObject({
    imageConfig: { aspectRatio: '16:9' },
    enableEnhancedCivicAnswers: true,
  });
});

/** A Gemini client's image part with `mediaResolution.level` HIGH, and a question. */
const sizedImage = (model: string) =>
  clients().google.models.generateContent({
    model,
    contents: [
      {
        role: 'user',
        parts: [
          {
            inlineData: { mimeType: 'image/png', data: pixel },
            mediaResolution: { level: 'MEDIA_RESOLUTION_HIGH' as never },
          },
          { text: 'What is this?' },
        ],
      },
    ],
  });

it('gemini part mediaResolution HIGH reaches Gemini 3 as the part’s resolution', async () => {
  harness.emulator.enqueue(scriptedText());
  await sizedImage('up-gemini3');
  const parts = (sent().contents as Array<{ parts: Array<Record<string, unknown>> }>)[0]!.parts;
  expect(parts[0]).toMatchObject({ mediaResolution: { level: 'MEDIA_RESOLUTION_HIGH' } });
});

it('gemini part mediaResolution HIGH reaches OpenAI Chat as the image’s detail', async () => {
  harness.emulator.enqueue(scriptedText());
  await sizedImage('up-chat');
  const content = (sent().messages as Array<{ content: unknown }>)[0]!.content as Array<
    Record<string, unknown>
  >;
  expect(content[0]).toMatchObject({ type: 'image_url', image_url: { detail: 'high' } });
});

it('gemini fields that do not change the answer are ignored, not a 400', async () => {
  harness.emulator.enqueue(scriptedText());
  const response = await clients().google.models.generateContent({
    model: 'up-gemini',
    contents: [{ role: 'user', parts: [{ text: 'Hi', partMetadata: { source: 'notes.txt' } }] }],
    config: { serviceTier: 'standard' as never, store: false, speechConfig: { languageCode: 'en-US' } },
  });
  expect(response.text).not.toBe('');
});

it('anthropic count_tokens takes speed', async () => {
  const response = await harness.post(
    '/v1/messages/count_tokens',
    { model: 'up-anthropic', messages: hi, speed: 'fast' },
    anthropicClient,
  );
  expect(response.status).toBe(200);
});
