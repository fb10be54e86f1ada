/** The output limit the router sets for a request that names none. */
import { describe, expect, it } from 'vitest';
import type { ReasoningRequest } from '../core/request.ts';
import { userText } from '../core/transcript.ts';
import { callNeeds, defaultOutputLimit } from './candidates.ts';

describe('defaultOutputLimit', () => {
  const facts = { contextWindow: 0, maxOutputTokens: 65_536 } as Parameters<typeof defaultOutputLimit>[0];
  const limit = (reasoning?: ReasoningRequest) => {
    const request = {
      model: 'm',
      maxOutputTokens: 1,
      transcript: [userText('Hi')],
      ...(reasoning && { reasoning }),
    };
    return defaultOutputLimit(facts, request, callNeeds(request), { provider: 'openai', type: 'openai' });
  };

  it('leaves room to think only when reasoning is asked for, not when it is turned off', () => {
    expect(limit()).toBe(4_096);
    expect(limit({ effort: 'low' })).toBe(32_768);
    expect(limit({ effort: 'none' })).toBe(4_096);
  });
});
