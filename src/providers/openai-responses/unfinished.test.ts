/**
 * A response body still `queued` or `in_progress` (a background response, or a host that answered
 * early) has no answer yet: a retryable ServerError, never an empty reply that looks complete.
 * Before, it finished `other` with no content, and every gateway client read a normal end.
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
  it.each(['in_progress', 'queued'])('status %s is a retryable ServerError naming it', async (status) => {
    emulator.enqueue({
      type: 'json',
      body: { id: 'resp_1', object: 'response', status, model: 'gpt-5-mini', output: [], usage: null },
    });
    const adapter = createOpenAIResponses({
      apiKey: 'test-key',
      baseURL: `${emulator.url}/v1`,
      maxRetries: 0,
      logger: silentLogger,
    });
    const error = await adapter
      .complete(userRequest('Hi', { model: 'openai:gpt-5-mini' }))
      .catch((caught: unknown) => caught);
    expect(isServerError(error)).toBe(true);
    expect(error).toMatchObject({ retryable: true });
    expect(String((error as Error).message)).toContain(`not finished (status ${status})`);
  });
});
