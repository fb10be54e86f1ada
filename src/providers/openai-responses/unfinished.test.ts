/**
 * A response body still `queued` or `in_progress` (a background response, or a host that answered
 * early) has no answer yet: a ServerError, never an empty reply that looks complete — and not sent
 * again, since each try would start (and bill) another background job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isServerError } from '../../core/errors/guards.ts';
import { silentLogger } from '../../core/logger.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { userRequest } from '../openai-chat/test-support.ts';
import { createOpenAIResponses } from './index.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());

describe('an unfinished Responses body', () => {
  it.each(['in_progress', 'queued'])('status %s is a ServerError naming it, sent once', async (status) => {
    emulator.clear();
    const before = emulator.requests.length;
    for (let attempt = 0; attempt < 3; attempt++)
      emulator.enqueue({
        type: 'json',
        body: { id: 'resp_1', object: 'response', status, model: 'gpt-5-mini', output: [], usage: null },
      });
    const adapter = createOpenAIResponses({
      apiKey: 'test-key',
      baseURL: `${emulator.url}/v1`,
      maxRetries: 2,
      retryBaseDelay: 1,
      logger: silentLogger,
    });
    const error = await adapter
      .complete(userRequest('Hi', { model: 'openai:gpt-5-mini' }))
      .catch((caught: unknown) => caught);
    expect(isServerError(error)).toBe(true);
    expect(error).toMatchObject({ retryable: false, providerCode: 'response_not_finished' });
    expect(String((error as Error).message)).toContain(`not finished (status ${status})`);
    expect(emulator.requests.length - before).toBe(1);
  });
});
