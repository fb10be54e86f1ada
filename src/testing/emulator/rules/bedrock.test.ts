/** The emulator's Converse rules for Claude's sampling and thinking, as Bedrock answers them (ValidationException 400s). */
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../types.ts';
import { checkConverseRequest } from './bedrock.ts';

const claude45 = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const claude41 = 'anthropic.claude-opus-4-1-20250805-v1:0';

function converse(model: string, fields: Record<string, unknown>): RecordedRequest {
  return {
    method: 'POST',
    path: `/model/${encodeURIComponent(model)}/converse`,
    query: {},
    headers: { authorization: 'Bearer bedrock-api-key' },
    body: { messages: [{ role: 'user', content: [{ text: 'Hi' }] }], ...fields },
    protocol: 'bedrock-converse',
  };
}

const refusal = (request: RecordedRequest) =>
  (checkConverseRequest(request) as { body?: { message?: string } } | undefined)?.body?.message;

describe('Converse: Claude sampling rules', () => {
  it('4.5 and later refuse temperature with topP; 4.1 takes both', () => {
    expect(refusal(converse(claude45, { inferenceConfig: { temperature: 0.3, topP: 0.9 } }))).toMatch(
      /cannot both be specified/,
    );
    expect(refusal(converse(claude45, { inferenceConfig: { temperature: 0.3 } }))).toBeUndefined();
    expect(refusal(converse(claude41, { inferenceConfig: { temperature: 0.3, topP: 0.9 } }))).toBeUndefined();
  });

  it('under thinking: only temperature 1, and no top_k', () => {
    const thinking = { thinking: { type: 'enabled', budget_tokens: 2048 } };
    expect(
      refusal(
        converse(claude41, { inferenceConfig: { temperature: 0.5 }, additionalModelRequestFields: thinking }),
      ),
    ).toMatch(/may only be set to 1/);
    expect(refusal(converse(claude41, { additionalModelRequestFields: { ...thinking, top_k: 20 } }))).toMatch(
      /top_k/,
    );
    expect(
      refusal(
        converse(claude41, { inferenceConfig: { temperature: 1 }, additionalModelRequestFields: thinking }),
      ),
    ).toBeUndefined();
  });

  it('other families are not held to them', () => {
    expect(
      refusal(
        converse('meta.llama3-3-70b-instruct-v1:0', { inferenceConfig: { temperature: 0.3, topP: 0.9 } }),
      ),
    ).toBeUndefined();
  });
});

describe('Converse: Claude thinking rule', () => {
  const toolConfig = { tools: [{ toolSpec: { name: 'lookup', inputSchema: { json: { type: 'object' } } } }] };
  const thinking = {
    toolConfig,
    additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 2048 } },
  };
  const call = { toolUse: { toolUseId: 'tooluse_1', name: 'lookup', input: {} } };
  const result = {
    role: 'user',
    content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'x' }] } }],
  };
  const turn = (first: unknown[]) => [
    { role: 'user', content: [{ text: 'Hi' }] },
    { role: 'assistant', content: [...first, call] },
    result,
  ];

  it('rejects a tool-use turn whose assistant message does not start with reasoning content', () => {
    expect(refusal(converse(claude45, { ...thinking, messages: turn([]) }))).toBe(
      'The model returned the following errors: messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking',
    );
    const reasoning = { reasoningContent: { reasoningText: { text: 'Look it up.', signature: 'sig' } } };
    expect(refusal(converse(claude45, { ...thinking, messages: turn([reasoning]) }))).toBeUndefined();
    expect(
      refusal(
        converse(claude45, {
          ...thinking,
          messages: turn([{ reasoningContent: { redactedContent: 'eA==' } }]),
        }),
      ),
    ).toBeUndefined();
  });

  it('holds no turn without thinking, after user text, or on another family', () => {
    expect(refusal(converse(claude45, { toolConfig, messages: turn([]) }))).toBeUndefined();
    const answered = [
      ...turn([]),
      { role: 'assistant', content: [{ text: 'Done.' }] },
      { role: 'user', content: [{ text: 'Next' }] },
    ];
    expect(refusal(converse(claude45, { ...thinking, messages: answered }))).toBeUndefined();
    expect(
      refusal(
        converse('amazon.nova-2-lite-v1:0', {
          toolConfig,
          additionalModelRequestFields: { reasoningConfig: { type: 'enabled' } },
          messages: turn([]),
        }),
      ),
    ).toBeUndefined();
  });
});
