/**
 * A Gemini client's `fileData` without `mimeType` (optional in the Gemini API): Google's video
 * guide sends a YouTube URL so, `{fileUri: 'https://www.youtube.com/watch?v=…'}`. A Gemini upstream
 * gets it as written; another provider, which takes no video, refuses it naming the part. Another
 * URI without a type is refused naming `fileData.mimeType` (no upstream could read its type).
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
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

const video = 'https://www.youtube.com/watch?v=9hE5-98ZeCg';
const ask = (model: string, fileData: Record<string, string>) =>
  clients.google.models.generateContent({
    model,
    contents: [{ role: 'user', parts: [{ fileData }, { text: 'Summarize the video in 3 sentences.' }] }],
  });

it.each(['up-gemini', 'up-gemini3'])(
  'a YouTube URL without mimeType reaches %s as written',
  async (model) => {
    harness.emulator.enqueue(scriptedText('A video.'));
    const reply = await ask(model, { fileUri: video });
    expect(reply.text).toBe('A video.');
    const sent = harness.emulator.requests.at(-1)!.body as { contents: Array<{ parts: unknown[] }> };
    expect(sent.contents[0]!.parts[0]).toEqual({ fileData: { fileUri: video } });
  },
);

it.each(['up-anthropic', 'up-chat', 'up-responses'])(
  'toward %s, which takes no video: a 400 naming the part',
  async (model) => {
    const error = (await ask(model, { fileUri: 'https://youtu.be/9hE5-98ZeCg' }).catch(
      (failure: unknown) => failure,
    )) as { status?: number; message: string };
    expect(error.status).toBe(400);
    expect(error.message).toContain('lacks video (contents.0.parts.0)');
    expect(harness.emulator.requests).toHaveLength(sentBefore);
  },
);

it('another URI without mimeType: a 400 naming fileData.mimeType', async () => {
  const error = (await ask('up-gemini', { fileUri: 'https://example.com/report' }).catch(
    (failure: unknown) => failure,
  )) as { status?: number; message: string };
  expect(error.status).toBe(400);
  expect(error.message).toContain('contents.0.parts.0.fileData.mimeType is required but for a YouTube URL');
  expect(harness.emulator.requests).toHaveLength(sentBefore);
});
