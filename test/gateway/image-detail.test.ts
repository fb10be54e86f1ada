/**
 * An OpenAI client's image resolution (`image_url.detail`, `input_image.detail`) reaches the
 * upstream: OpenAI Chat and Responses as `detail`, Gemini 3 as the part's `mediaResolution`;
 * Gemini 2.5 (no per-part setting) and Claude (none at all) get the image as before.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

const url =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** A Chat or a Responses request with one image of `detail`. */
function request(client: 'chat' | 'responses', model: string, detail: unknown) {
  if (client === 'chat')
    return harness.post('/v1/chat/completions', {
      model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url, detail } },
            { type: 'text', text: 'x' },
          ],
        },
      ],
    });
  return harness.post('/v1/responses', {
    model,
    input: [
      {
        role: 'user',
        content: [
          { type: 'input_image', image_url: url, detail },
          { type: 'input_text', text: 'x' },
        ],
      },
    ],
  });
}

/** The image part the upstream was sent, in its own shape. */
function upstreamImage(): Record<string, unknown> {
  const body = harness.emulator.requests.at(-1)!.body as Record<string, never>;
  const turns = (body.messages ?? body.input ?? body.contents) as Array<{
    content?: Array<Record<string, unknown>>;
    parts?: Array<Record<string, unknown>>;
  }>;
  const parts = turns.flatMap((turn) => turn.content ?? turn.parts ?? []);
  return parts.find(
    (part) =>
      part.type === 'image_url' ||
      part.type === 'input_image' ||
      part.type === 'image' ||
      part.inlineData !== undefined,
  )!;
}

const text = { type: 'scripted', content: [{ type: 'text', text: 'ok' }] } as const;

for (const client of ['chat', 'responses'] as const)
  it.each(['low', 'high'])(
    `a ${client} client's detail %s reaches OpenAI Chat and Responses upstreams`,
    async (detail) => {
      harness.emulator.enqueue({ ...text, content: [...text.content] });
      expect((await request(client, 'up-chat', detail)).status).toBe(200);
      expect(upstreamImage()).toEqual({ type: 'image_url', image_url: { url, detail } });
      harness.emulator.enqueue({ ...text, content: [...text.content] });
      expect((await request(client, 'up-responses', detail)).status).toBe(200);
      expect(upstreamImage()).toEqual({ type: 'input_image', image_url: url, detail });
    },
  );

it.each(['chat', 'responses'] as const)(
  'a %s client without detail: the upstreams get their default',
  async (client) => {
    harness.emulator.enqueue({ ...text, content: [...text.content] });
    await request(client, 'up-chat', undefined);
    expect(upstreamImage()).toEqual({ type: 'image_url', image_url: { url } });
    harness.emulator.enqueue({ ...text, content: [...text.content] });
    await request(client, 'up-responses', 'auto');
    expect(upstreamImage()).toEqual({ type: 'input_image', image_url: url, detail: 'auto' });
  },
);

it.each([
  ['low', 'MEDIA_RESOLUTION_LOW'],
  ['high', 'MEDIA_RESOLUTION_HIGH'],
])(
  'detail %s reaches Gemini 3 as the part’s mediaResolution; Gemini 2.5 and Claude get none',
  async (detail, level) => {
    harness.emulator.enqueue({ ...text, content: [...text.content] });
    await request('chat', 'up-gemini3', detail);
    expect(upstreamImage().mediaResolution).toEqual({ level });
    harness.emulator.enqueue({ ...text, content: [...text.content] });
    await request('chat', 'up-gemini', detail);
    expect(upstreamImage()).toEqual({ inlineData: expect.any(Object) });
    harness.emulator.enqueue({ ...text, content: [...text.content] });
    expect((await request('responses', 'up-anthropic', detail)).status).toBe(200);
    expect(Object.keys(upstreamImage()).sort()).toEqual(['source', 'type']);
  },
);

it.each(['chat', 'responses'] as const)(
  'a %s client’s unknown detail is a 400 naming the field',
  async (client) => {
    const response = await request(client, 'up-chat', 'tiny');
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; param?: string } };
    expect(body.error.message).toContain('must be auto, low, high or original');
    expect(body.error.param).toMatch(/detail$/);
  },
);
