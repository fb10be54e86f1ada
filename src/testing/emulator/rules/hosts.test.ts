/** Host rules of the emulator: Mistral tool-call ids, DeepSeek and Kimi thinking-mode reasoning_content. */
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../types.ts';
import { checkHostRules } from './hosts.ts';

function chat(model: string, messages: unknown[]): RecordedRequest {
  return {
    method: 'POST',
    path: '/v1/chat/completions',
    query: {},
    headers: {},
    body: { model, messages },
    protocol: 'openai-chat',
  };
}

const call = (id: string, extra: object = {}) => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: '{}' } }],
  ...extra,
});

describe('emulator host rules', () => {
  it('Mistral rejects a tool-call id that is not 9 alphanumerics, in calls and in tool messages', () => {
    const user = { role: 'user', content: 'hi' };
    expect(checkHostRules(chat('mistral-large-latest', [user, call('Abc123xyz')]))).toBeUndefined();
    const badCall = checkHostRules(chat('magistral-medium-latest', [user, call('toolu_01ABC')]));
    expect(badCall).toMatchObject({ status: 400, body: { message: expect.stringMatching(/toolu_01ABC/) } });
    const badResult = checkHostRules(
      chat('mistral-small', [
        user,
        call('Abc123xyz'),
        { role: 'tool', tool_call_id: 'call_1', content: 'x' },
      ]),
    );
    expect(badResult).toMatchObject({ status: 400 });
  });

  it('DeepSeek thinking mode needs reasoning_content on tool calls of the current turn only', () => {
    const user = { role: 'user', content: 'hi' };
    const result = { role: 'tool', tool_call_id: 'c1', content: 'x' };
    expect(checkHostRules(chat('deepseek-reasoner', [user, call('c1'), result]))).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringMatching(/reasoning_content.*index 1/) } },
    });
    expect(
      checkHostRules(chat('deepseek-reasoner', [user, call('c1', { reasoning_content: 'r' }), result])),
    ).toBeUndefined();
    // An earlier turn's call may come without it; other models are not checked.
    expect(checkHostRules(chat('deepseek-reasoner', [user, call('c1'), result, user]))).toBeUndefined();
    expect(checkHostRules(chat('deepseek-chat', [user, call('c1'), result]))).toBeUndefined();
  });

  it('Kimi thinking mode needs a non-empty reasoning_content on every tool-call message, any turn', () => {
    const user = { role: 'user', content: 'hi' };
    const result = { role: 'tool', tool_call_id: 'c1', content: 'x' };
    const refusal = {
      status: 400,
      body: {
        error: {
          message:
            'thinking is enabled but reasoning_content is missing in assistant tool call message at index 1',
          type: 'invalid_request_error',
        },
      },
    };
    expect(checkHostRules(chat('kimi-k2-thinking', [user, call('c1'), result]))).toMatchObject(refusal);
    expect(
      checkHostRules(chat('kimi-k2.5', [user, call('c1', { reasoning_content: '' }), result])),
    ).toMatchObject(refusal);
    // An earlier turn counts too; reasoning_content present passes; other models are not checked.
    expect(checkHostRules(chat('kimi-k2-thinking', [user, call('c1'), result, user]))).toMatchObject(refusal);
    expect(
      checkHostRules(chat('kimi-k2-thinking', [user, call('c1', { reasoning_content: '.' }), result])),
    ).toBeUndefined();
    expect(checkHostRules(chat('kimi-k2-turbo-preview', [user, call('c1'), result]))).toBeUndefined();
  });
});
