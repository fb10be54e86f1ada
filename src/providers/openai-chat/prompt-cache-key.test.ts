/** `prompt_cache_key` goes to OpenAI's own Chat Completions only: another Chat host may refuse an unknown field. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSession } from '../../core/adapter.ts';
import { silentLogger } from '../../core/logger.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { createOpenAICompatible, presets } from '../openai-compatible/index.ts';
import { createOpenAI } from './index.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});
beforeEach(() => emulator.clear());
afterAll(async () => {
  await emulator.close();
});

const request = (model: string): CanonicalRequest => ({
  model,
  maxOutputTokens: 100,
  transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
  cache: { key: 'conv-1' },
});
const keySent = () => (emulator.requests.at(-1)!.body as { prompt_cache_key?: unknown }).prompt_cache_key;
const answer = { type: 'scripted' as const, content: [{ type: 'text' as const, text: 'ok' }] };
const common = () => ({
  apiKey: 'test-key',
  baseURL: `${emulator.url}/v1`,
  maxRetries: 0,
  logger: silentLogger,
});

describe('prompt_cache_key on Chat Completions', () => {
  it('OpenAI: the caller’s key; a conversation’s session key without one', async () => {
    const openai = createOpenAI(common());
    emulator.enqueue(answer);
    await openai.complete(request('openai:gpt-4.1-mini'));
    expect(keySent()).toBe('conv-1');
    const session = createSession();
    emulator.enqueue(answer);
    await openai.complete({ ...request('openai:gpt-4.1-mini'), cache: {} }, { session });
    expect(keySent()).toBe(`switchyard-${session.id}`);
  });

  it('another Chat host (Groq): none', async () => {
    const groq = createOpenAICompatible(presets.groq, common());
    emulator.enqueue(answer);
    await groq.complete(request('groq:llama-3.3-70b-versatile'));
    expect(keySent()).toBeUndefined();
  });
});
