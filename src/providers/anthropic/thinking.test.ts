/** Extended thinking on the wire: tool-use turns without a thinking block, effort budgets, unsigned reasoning. */
import { describe, expect, it } from 'vitest';
import { toolCallId } from '../../core/ids.ts';
import type { Item, Part } from '../../core/transcript.ts';
import { buildTestRequest as build } from './test-support.ts';

const callId = toolCallId('tu_01JCALLWEATHER00000000000');
const tools = [{ name: 'get_weather', inputSchema: { type: 'object' } }];

function user(text: string): Item {
  return { kind: 'user', parts: [{ type: 'text', text }] };
}

function assistant(...parts: Part[]): Item {
  return { kind: 'assistant', parts };
}

const toolCall: Part = { type: 'tool-call', id: callId, name: 'get_weather', input: { city: 'Paris' } };
const toolResult: Item = {
  kind: 'tool',
  parts: [{ type: 'tool-result', callId, output: { type: 'text', text: '20°C' }, isError: false }],
};
const signedThinking: Part = {
  type: 'reasoning',
  text: 'Look it up.',
  signature: 'sig-1',
  provider: 'anthropic',
};
const disabledWarning = {
  message: 'thinking disabled for this turn: the last tool-use turn has no Anthropic thinking block',
  fields: { adapter: 'anthropic', requestId: 'req_test', messageIndex: 1, firstBlock: 'tool_use' },
};

describe('thinking and a tool-use turn without a thinking block', () => {
  it('omits thinking after a foreign provider’s tool call, with a structured WARN', () => {
    const openaiReasoning: Part = { type: 'reasoning', text: 'r', provider: 'openai', data: 'enc' };
    const { body, warnings } = build({
      transcript: [
        user('Weather?'),
        assistant(openaiReasoning, { ...toolCall, provider: 'openai' }),
        toolResult,
      ],
      tools,
      reasoning: { effort: 'medium' },
      maxOutputTokens: 2048,
    });
    expect(body).toMatchInlineSnapshot(`
      {
        "max_tokens": 2048,
        "messages": [
          {
            "content": [
              {
                "text": "Weather?",
                "type": "text",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "id": "tu_01JCALLWEATHER00000000000",
                "input": {
                  "city": "Paris",
                },
                "name": "get_weather",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": "20°C",
                "tool_use_id": "tu_01JCALLWEATHER00000000000",
                "type": "tool_result",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-5",
        "tools": [
          {
            "input_schema": {
              "type": "object",
            },
            "name": "get_weather",
          },
        ],
      }
    `);
    expect(warnings.map((entry) => entry.message)).toEqual([
      'dropped a part the provider cannot take',
      disabledWarning.message,
    ]);
    expect(warnings[1]).toMatchObject(disabledWarning);
  });

  it('omits thinking after a cancelled thinking block Anthropic never signed', () => {
    const cancelled: Part = { type: 'reasoning', text: 'Half a tho', provider: 'anthropic' };
    const { body, warnings } = build({
      transcript: [user('Weather?'), assistant(cancelled, toolCall), toolResult],
      tools,
      reasoning: { budgetTokens: 2000 },
      maxOutputTokens: 4000,
    });
    expect(body).not.toHaveProperty('thinking');
    expect(warnings.at(-1)).toMatchObject(disabledWarning);
  });

  it('omits adaptive thinking and its effort but keeps the structured-output format', () => {
    const { body } = build(
      {
        transcript: [user('Weather?'), assistant(toolCall), toolResult],
        tools,
        reasoning: { effort: 'high' },
        outputSchema: {
          name: 'weather',
          schema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
      'claude-opus-4-7',
    );
    expect(body).not.toHaveProperty('thinking');
    expect(body.output_config).toEqual({
      format: {
        type: 'json_schema',
        schema: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false },
      },
    });
  });

  it('omits thinking when a prefill follows the tool results of such a turn', () => {
    const { body } = build({
      transcript: [
        user('Weather?'),
        assistant(toolCall),
        toolResult,
        assistant({ type: 'text', text: 'It is' }),
      ],
      tools,
      reasoning: { effort: 'low' },
      maxOutputTokens: 4000,
    });
    expect(body).not.toHaveProperty('thinking');
  });

  it('keeps thinking through a multi-step tool loop that started with a signed thinking block', () => {
    const second = toolCallId('tu_01JCALLSECOND000000000000');
    const { body, warnings } = build({
      transcript: [
        user('Weather?'),
        assistant(signedThinking, toolCall),
        toolResult,
        // Without interleaved thinking, Claude thinks once per turn: later steps start with tool_use.
        assistant({ type: 'tool-call', id: second, name: 'get_weather', input: { city: 'Lyon' } }),
        {
          kind: 'tool',
          parts: [
            { type: 'tool-result', callId: second, output: { type: 'text', text: '21°C' }, isError: false },
          ],
        },
      ],
      tools,
      reasoning: { budgetTokens: 2000 },
      maxOutputTokens: 4000,
    });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
    expect(warnings).toEqual([]);
  });

  it('keeps thinking when the turn starts with redacted thinking', () => {
    const redacted: Part = {
      type: 'reasoning',
      text: '',
      redacted: true,
      data: 'EmwKAhgB',
      provider: 'anthropic',
    };
    const { body } = build({
      transcript: [user('Weather?'), assistant(redacted, toolCall), toolResult],
      tools,
      reasoning: { budgetTokens: 2000 },
      maxOutputTokens: 4000,
    });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
  });

  it('keeps thinking once the user has spoken after the foreign tool turn (a new turn)', () => {
    const { body, warnings } = build({
      transcript: [user('Weather?'), assistant(toolCall), toolResult, user('And tomorrow?')],
      tools,
      reasoning: { budgetTokens: 2000 },
      maxOutputTokens: 4000,
    });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
    expect(warnings).toEqual([]);
  });
});

describe('effort budgets on budget-only models', () => {
  const ask = [user('Think.')];
  const budget = (effort: 'minimal' | 'low' | 'medium' | 'high' | 'xhigh', maxOutputTokens: number) =>
    build({ transcript: ask, reasoning: { effort }, maxOutputTokens });

  it('scales an effort budget to three quarters of max_tokens, without a WARN', () => {
    const medium = budget('medium', 2048);
    expect(medium.body.thinking).toEqual({ type: 'enabled', budget_tokens: 1536 });
    expect(medium.warnings).toEqual([]);
    expect(budget('high', 4096).body.thinking).toEqual({ type: 'enabled', budget_tokens: 3072 });
    expect(budget('low', 32_000).body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });

  it('gives xhigh twice high’s budget (32768) where max_tokens has room, never less than high', () => {
    expect(budget('xhigh', 64_000)).toEqual(
      expect.objectContaining({
        body: expect.objectContaining({ thinking: { type: 'enabled', budget_tokens: 32_768 } }),
        warnings: [],
      }),
    );
    // The gateway's default output room for reasoning (32,768): high 16,384, xhigh three quarters.
    expect(budget('high', 32_768).body.thinking).toEqual({ type: 'enabled', budget_tokens: 16_384 });
    expect(budget('xhigh', 32_768).body.thinking).toEqual({ type: 'enabled', budget_tokens: 24_576 });
    expect(budget('xhigh', 4096).body.thinking).toEqual({ type: 'enabled', budget_tokens: 3072 });
  });

  it('never goes below the 1024 minimum while 1024 fits below max_tokens; below, no thinking', () => {
    expect(budget('high', 1300).body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(budget('medium', 1025).body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    const none = budget('minimal', 1024);
    expect(none.body).not.toHaveProperty('thinking');
    expect(none.warnings).toMatchObject([{ message: 'ignored a reasoning request' }]);
  });

  it('keeps an explicit budget as asked, clamped below max_tokens with a WARN', () => {
    const { body, warnings } = build({
      transcript: ask,
      reasoning: { budgetTokens: 8192, effort: 'high' },
      maxOutputTokens: 2048,
    });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2047 });
    expect(warnings).toMatchObject([
      { message: 'adjusted the thinking budget', fields: { requested: 8192, sent: 2047, maxTokens: 2048 } },
    ]);
  });
});

describe('xhigh on adaptive models', () => {
  it('is output_config.effort xhigh where the model takes it (Opus 4.7+), else its most, max (4.6)', () => {
    const effortOf = (model: string) => {
      const { body, warnings } = build(
        { transcript: [user('Think.')], reasoning: { effort: 'xhigh' } },
        model,
      );
      return [body.thinking, body.output_config, warnings];
    };
    for (const model of ['claude-opus-4-7', 'claude-opus-5'])
      expect(effortOf(model)).toEqual([{ type: 'adaptive' }, { effort: 'xhigh' }, []]);
    for (const model of ['claude-opus-4-6', 'claude-sonnet-4-6'])
      expect(effortOf(model)).toEqual([{ type: 'adaptive' }, { effort: 'max' }, []]);
  });
});

describe('adaptive-only models', () => {
  it('sends adaptive thinking with an effort to Mythos and Fable models', () => {
    for (const model of ['claude-mythos-5', 'claude-mythos-preview', 'claude-fable-5']) {
      const { body } = build({ transcript: [user('Think.')], reasoning: { budgetTokens: 9000 } }, model);
      expect(body).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
    }
  });
});

describe('unsigned reasoning with data', () => {
  function assistantBlocks(reasoning: Part) {
    const { body, warnings } = build({
      transcript: [user('q'), assistant(reasoning, { type: 'text', text: 'a' }), user('b')],
    });
    const messages = body.messages as Array<{ content: unknown[] }>;
    return { blocks: messages[1]?.content, warnings, json: JSON.stringify(body) };
  }

  it('sends reasoning with data and no signature as redacted_thinking, never with signature ""', () => {
    const { blocks, json } = assistantBlocks({
      type: 'reasoning',
      text: 'x',
      provider: 'anthropic',
      data: 'abc',
    });
    expect(blocks).toEqual([
      { type: 'redacted_thinking', data: 'abc' },
      { type: 'text', text: 'a' },
    ]);
    expect(json).not.toContain('"signature":""');
  });

  it('treats an empty signature as none', () => {
    const withData = assistantBlocks({
      type: 'reasoning',
      text: 'x',
      provider: 'anthropic',
      data: 'abc',
      signature: '',
    });
    expect(withData.blocks?.[0]).toEqual({ type: 'redacted_thinking', data: 'abc' });
    const without = assistantBlocks({ type: 'reasoning', text: 'x', provider: 'anthropic', signature: '' });
    expect(without.blocks).toEqual([{ type: 'text', text: 'a' }]);
    expect(without.warnings).toMatchObject([
      { fields: { blockType: 'reasoning', reason: 'reasoning without the signature the provider requires' } },
    ]);
    expect(without.json).not.toContain('signature');
  });

  it('keeps a signed thinking block as thinking', () => {
    const { blocks } = assistantBlocks({ ...signedThinking, data: 'ignored' } as Part);
    expect(blocks?.[0]).toEqual({ type: 'thinking', thinking: 'Look it up.', signature: 'sig-1' });
  });
});

describe('reasoning off (effort none)', () => {
  it('sends no thinking and no effort — off is Anthropic’s default — and keeps the sampling', () => {
    for (const model of ['claude-sonnet-4-5', 'claude-opus-4-7', 'claude-3-5-haiku-latest']) {
      const { body, warnings } = build(
        { transcript: [user('Hi')], reasoning: { effort: 'none' }, temperature: 0.3 },
        model,
      );
      expect(body).not.toHaveProperty('thinking');
      expect(body).not.toHaveProperty('output_config');
      expect(body).toMatchObject({ temperature: 0.3 });
      expect(warnings).toEqual([]);
    }
  });
});
