import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../core/json.ts';
import type { Item } from '../../core/transcript.ts';
import { presets } from '../openai-compatible/presets.ts';
import { defaultQuirks, mergeQuirks } from './quirks.ts';
import { buildRequest } from './request.ts';
import { createTestContext, feedResponse, feedStream } from './test-support.ts';

const openrouter = mergeQuirks(defaultQuirks, presets.openrouter.quirks);
const model = 'google/gemini-3-pro-preview';

function chunk(delta: object, finish: string | null = null): string {
  return JSON.stringify({ id: 'gen-1', model, choices: [{ index: 0, delta, finish_reason: finish }] });
}

/** The assistant message a follow-up request sends for `parts`. */
function replayed(parts: Item['parts']): JsonObject {
  const context = createTestContext({ provider: 'openrouter', model });
  const transcript: Item[] = [
    { kind: 'user', parts: [{ type: 'text', text: 'q' }] },
    { kind: 'assistant', parts },
  ];
  const { body } = buildRequest({ model: `openrouter:${model}`, transcript, maxOutputTokens: 10 }, context, {
    quirks: openrouter,
    strictTools: false,
  });
  return (body.messages as JsonObject[])[1] as JsonObject;
}

describe('OpenRouter reasoning_details replay', () => {
  it('replays streamed entries verbatim: text and encrypted kept apart, id and index kept', () => {
    const text = { type: 'reasoning.text', format: 'google-gemini-v1', index: 0 };
    const encrypted = {
      type: 'reasoning.encrypted',
      data: 'GEMINI_SIG',
      id: 'tool_get_weather_abc',
      format: 'google-gemini-v1',
      index: 0,
    };
    const call = { index: 0, id: 'tool_get_weather_abc', type: 'function' };
    const result = feedStream(
      [
        chunk({ role: 'assistant', reasoning: 'Pl', reasoning_details: [{ ...text, text: 'Pl' }] }),
        chunk({ reasoning: 'an', reasoning_details: [{ ...text, text: 'an' }] }),
        chunk({
          tool_calls: [{ ...call, function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          reasoning_details: [encrypted],
        }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ],
      openrouter,
      createTestContext({ provider: 'openrouter', model, stream: true }),
    );
    const [reasoning] = result.response.content;
    expect(reasoning).toMatchObject({ type: 'reasoning', text: 'Plan' });
    const entries = [{ ...text, text: 'Plan' }, encrypted];
    expect(reasoning?.metadata?.['openrouter.reasoning_details']).toEqual(entries);
    expect(replayed(result.response.content).reasoning_details).toEqual(entries);
  });

  it('keeps a response body’s entries exactly as received, none merged', () => {
    const details = [
      {
        type: 'reasoning.summary',
        summary: 'Looked it up.',
        id: 'rs_1',
        format: 'openai-responses-v1',
        index: 0,
      },
      { type: 'reasoning.encrypted', data: 'enc==', id: 'rs_1', format: 'openai-responses-v1', index: 0 },
      { type: 'reasoning.text', text: 'More.', signature: null, format: 'unknown', index: 1 },
    ];
    const response = feedResponse(
      {
        id: 'gen-2',
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'Done.', reasoning: 'x', reasoning_details: details },
            finish_reason: 'stop',
          },
        ],
      },
      openrouter,
      createTestContext({ provider: 'openrouter', model }),
    );
    expect(response.content[0]).toMatchObject({ type: 'reasoning', text: 'Looked it up.More.' });
    expect(replayed(response.content)).toEqual({
      role: 'assistant',
      content: 'Done.',
      reasoning_details: details,
    });
  });
});
