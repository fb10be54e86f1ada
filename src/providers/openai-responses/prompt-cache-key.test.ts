/** `prompt_cache_key`: the caller's key, the session's id for a conversation, none for a one-off call. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSession } from '../../core/adapter.ts';
import { silentLogger } from '../../core/logger.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { createOpenAIResponses } from './index.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});
beforeEach(() => emulator.clear());
afterAll(async () => {
  await emulator.close();
});

const adapter = () =>
  createOpenAIResponses({
    apiKey: 'test-key',
    baseURL: `${emulator.url}/v1`,
    maxRetries: 0,
    logger: silentLogger,
  });
const request = (cache: CanonicalRequest['cache']): CanonicalRequest => ({
  model: 'openai-responses:gpt-5-mini',
  maxOutputTokens: 100,
  transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
  ...(cache === undefined ? {} : { cache }),
});
const keySent = () => (emulator.requests.at(-1)!.body as { prompt_cache_key?: unknown }).prompt_cache_key;
const answer = { type: 'scripted' as const, content: [{ type: 'text' as const, text: 'ok' }] };

describe('prompt_cache_key', () => {
  it('a conversation (a session the caller gives): the session’s id, the same on each of its calls', async () => {
    const session = createSession();
    const responses = adapter();
    const keys = [];
    for (const _ of [1, 2]) {
      emulator.enqueue(answer);
      await responses.complete(request({}), { session });
      keys.push(keySent());
    }
    expect(keys).toEqual([`switchyard-${session.id}`, `switchyard-${session.id}`]);
  });

  it('a one-off call (no session): none, not a key made for that call alone', async () => {
    emulator.enqueue(answer);
    await adapter().complete(request({}));
    expect(keySent()).toBeUndefined();
  });

  it('the caller’s key wins over the session’s', async () => {
    emulator.enqueue(answer);
    await adapter().complete(request({ key: 'mine' }), { session: createSession() });
    expect(keySent()).toBe('mine');
  });

  it('no cache request: no key', async () => {
    emulator.enqueue(answer);
    await adapter().complete(request(undefined), { session: createSession() });
    expect(keySent()).toBeUndefined();
  });
});
