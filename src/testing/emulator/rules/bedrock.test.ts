/** The emulator's Converse rules for Claude's sampling, as Bedrock answers them (ValidationException 400s). */
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
