/**
 * OpenAI's search models (gpt-4o-search-preview) cite web pages in Chat Completions annotations:
 * `choices[0].message.annotations` whole, `choices[0].delta.annotations` streamed, each
 * `{type: 'url_citation', url_citation: {url, title, start_index, end_index}}`. They become the
 * text part's metadata `openai.annotations` in the Responses adapter's flat form, offsets within
 * the part.
 */
import { describe, expect, it } from 'vitest';
import type { Item } from '../../core/transcript.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { openaiQuirks } from './quirks.ts';
import { buildRequest } from './request.ts';
import { createTestContext, feedResponse, feedStream, textOf } from './test-support.ts';

const text = 'Paris is sunny today [weather.example].';
const wire = (start: number, end: number, url: string, title = 'Weather') => ({
  type: 'url_citation',
  url_citation: { end_index: end, start_index: start, title, url },
});
const canonical = (start: number, end: number, url: string, title = 'Weather') => ({
  type: 'url_citation',
  start_index: start,
  end_index: end,
  url,
  title,
});
const base = {
  id: 'chatcmpl-s',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-4o-search-preview',
};
const chunk = (delta: object, finish: string | null = null) =>
  JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });

describe('Chat annotations, whole', () => {
  it('message.annotations become the text part’s openai.annotations', () => {
    const response = feedResponse(
      {
        id: 'chatcmpl-s',
        model: 'gpt-4o-search-preview',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text,
              refusal: null,
              annotations: [wire(21, 38, 'https://weather.example/paris'), { type: 'unknown' }],
            },
            finish_reason: 'stop',
          },
        ],
      },
      openaiQuirks,
    );
    expect(response.content).toEqual([
      {
        type: 'text',
        text,
        metadata: { 'openai.annotations': [canonical(21, 38, 'https://weather.example/paris')] },
      },
    ]);
  });

  it('a message without annotations (or an empty list) has no metadata', () => {
    const message = { role: 'assistant', content: 'Hi.', annotations: [] };
    const response = feedResponse(
      { id: 'c', model: 'gpt-4o', choices: [{ index: 0, message, finish_reason: 'stop' }] },
      openaiQuirks,
    );
    expect(response.content).toEqual([{ type: 'text', text: 'Hi.' }]);
  });

  it('a message with tool calls too: the annotations are still its text part’s', () => {
    const message = {
      role: 'assistant',
      content: text,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'book', arguments: '{}' } }],
      annotations: [wire(21, 38, 'https://weather.example/paris')],
    };
    const response = feedResponse(
      { id: 'c', model: 'gpt-4o', choices: [{ index: 0, message, finish_reason: 'tool_calls' }] },
      openaiQuirks,
    );
    expect(response.content[0]).toEqual({
      type: 'text',
      text,
      metadata: { 'openai.annotations': [canonical(21, 38, 'https://weather.example/paris')] },
    });
    expect(response.metadata?.['openai.annotations']).toBeUndefined();
  });
});

describe('Chat annotations, streamed', () => {
  it('an annotations delta after the text reaches the text part’s end', () => {
    const result = feedStream(
      [
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: text.slice(0, 20) }),
        chunk({ content: text.slice(20) }),
        chunk({ annotations: [wire(21, 38, 'https://weather.example/paris')] }),
        chunk({}, 'stop'),
        '[DONE]',
      ],
      openaiQuirks,
    );
    expect(result.error).toBeUndefined();
    assertStreamInvariants(result.events);
    const end = result.events.find((event) => event.type === 'text-end');
    expect(end).toMatchObject({
      metadata: { 'openai.annotations': [canonical(21, 38, 'https://weather.example/paris')] },
    });
    expect(textOf(result.response)).toBe(text);
    expect(result.response.content[0]?.metadata).toEqual({
      'openai.annotations': [canonical(21, 38, 'https://weather.example/paris')],
    });
  });

  it('annotations before, with and after the text are all kept, in order', () => {
    const result = feedStream(
      [
        chunk({ role: 'assistant', annotations: [wire(0, 5, 'https://a.example', 'A')] }),
        chunk({ content: text.slice(0, 20), annotations: [wire(6, 8, 'https://b.example', 'B')] }),
        chunk({ content: text.slice(20) }),
        chunk({ annotations: [wire(21, 38, 'https://c.example')] }, 'stop'),
        '[DONE]',
      ],
      openaiQuirks,
    );
    assertStreamInvariants(result.events);
    expect(result.response.content[0]?.metadata).toEqual({
      'openai.annotations': [
        canonical(0, 5, 'https://a.example', 'A'),
        canonical(6, 8, 'https://b.example', 'B'),
        canonical(21, 38, 'https://c.example'),
      ],
    });
  });

  it('a second text part (after reasoning) gets its own annotations, offsets made its own', () => {
    const result = feedStream(
      [
        chunk({ content: 'First. ' }),
        chunk({ reasoning_content: 'Hmm.' }),
        chunk({ content: 'Second.', annotations: [wire(7, 14, 'https://second.example', 'S')] }),
        chunk({}, 'stop'),
        '[DONE]',
      ],
      openaiQuirks,
    );
    assertStreamInvariants(result.events);
    const texts = result.response.content.filter((part) => part.type === 'text');
    expect(texts.map((part) => part.metadata)).toEqual([
      undefined,
      { 'openai.annotations': [canonical(0, 7, 'https://second.example', 'S')] },
    ]);
  });

  it('text, reasoning, text: an annotation citing the first text is not the second’s', () => {
    const quirks = { ...openaiQuirks, reasoningFields: ['reasoning_content' as const] };
    const result = feedStream(
      [
        chunk({ role: 'assistant', content: 'Paris is sunny.' }),
        chunk({ reasoning_content: 'checking Lyon' }),
        chunk({ content: ' Lyon is rainy.' }),
        chunk(
          {
            annotations: [
              wire(0, 15, 'https://paris.example', 'P'),
              wire(16, 20, 'https://lyon.example', 'L'),
            ],
          },
          'stop',
        ),
        '[DONE]',
      ],
      quirks,
    );
    assertStreamInvariants(result.events);
    const texts = result.response.content.filter((part) => part.type === 'text');
    expect(texts.map((part) => part.metadata)).toEqual([
      undefined,
      { 'openai.annotations': [canonical(1, 5, 'https://lyon.example', 'L')] },
    ]);
    // The first part had ended: the response's, offsets the whole message's, never clamped.
    expect(result.response.metadata?.['openai.annotations']).toEqual([
      canonical(0, 15, 'https://paris.example', 'P'),
    ]);
  });

  it('annotations after the text part ended (a tool call came between) are the response’s', () => {
    const call = { index: 0, id: 'call_1', type: 'function', function: { name: 'book', arguments: '{}' } };
    const result = feedStream(
      [
        chunk({ role: 'assistant', content: text }),
        chunk({ tool_calls: [call] }),
        chunk({ annotations: [wire(21, 38, 'https://weather.example/paris')] }, 'tool_calls'),
        '[DONE]',
      ],
      openaiQuirks,
    );
    assertStreamInvariants(result.events);
    expect(result.response.content[0]?.metadata).toBeUndefined();
    expect(result.response.metadata?.['openai.annotations']).toEqual([
      canonical(21, 38, 'https://weather.example/paris'),
    ]);
  });

  it('annotations after the finish chunk, with no text part left open, are the response’s', () => {
    const result = feedStream(
      [
        chunk({ content: text }, 'stop'),
        chunk({ annotations: [wire(0, 5, 'https://late.example')] }),
        '[DONE]',
      ],
      openaiQuirks,
    );
    assertStreamInvariants(result.events);
    expect(result.response.metadata?.['openai.annotations']).toEqual([
      canonical(0, 5, 'https://late.example'),
    ]);
  });
});

describe('Chat annotations, replayed', () => {
  it('an assistant text carrying annotations goes back as plain content, no annotations field', () => {
    const assistant: Item = {
      kind: 'assistant',
      parts: [
        {
          type: 'text',
          text,
          metadata: { 'openai.annotations': [canonical(21, 38, 'https://weather.example/paris')] },
        },
      ],
    };
    const request = buildRequest(
      {
        model: 'openai:gpt-4o-search-preview',
        transcript: [
          { kind: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] },
          assistant,
          { kind: 'user', parts: [{ type: 'text', text: 'Thanks' }] },
        ],
        maxOutputTokens: 256,
      },
      createTestContext({ model: 'gpt-4o-search-preview' }),
      { quirks: openaiQuirks, strictTools: false },
    );
    const messages = (request.body as { messages: Record<string, unknown>[] }).messages;
    expect(messages[1]).toEqual({ role: 'assistant', content: text });
    expect(JSON.stringify(request.body)).not.toContain('annotations');
  });
});
