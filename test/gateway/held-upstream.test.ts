/**
 * An upstream that writes its whole stream and then holds the connection open: the gateway's
 * client gets its complete reply at once, not when the upstream's idle timeout fires (5 s here,
 * 120 s by default). The upstream is the recorded Anthropic stream, ended by `message_stop`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listRecorded, readRecorded } from '../support/fixtures.ts';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

const idleTimeoutMs = 5_000;
const recording = listRecorded('anthropic').find((path) => path.endsWith('/anthropic-text.chunks.txt'))!;
/** One SSE event a recorded line: the emulator writes them all, then holds the connection. */
const events = readRecorded(recording)
  .split('\n')
  .filter((line) => line.trim() !== '').length;

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness({}, { anthropic: { idleTimeout: idleTimeoutMs } });
});
afterAll(() => harness?.close());

it('a Chat client streaming from an Anthropic upstream that holds the connection after message_stop gets the whole reply promptly', async () => {
  harness.emulator.enqueue({ type: 'replay', file: recording, fault: { stallAfterEvents: events } });
  const began = performance.now();
  const stream = await createClients(harness.server.url).openai.chat.completions.create({
    model: 'up-anthropic',
    stream: true,
    messages: [{ role: 'user', content: 'Hi' }],
  });
  let text = '';
  let finishReason: string | null | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
  }
  const ms = performance.now() - began;
  expect(text).toBe(
    "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
  );
  expect(finishReason).toBe('stop');
  expect(ms).toBeLessThan(idleTimeoutMs / 2);
  expect(harness.logger.entries.map((entry) => entry.message)).not.toContain(
    'ignored a failure of the stream after the response was complete',
  );
});
