/**
 * Redacted reasoning in a stream: `reasoning-start` says `redacted: true`, so the Anthropic stream
 * encoder opens a `redacted_thinking` block (its `data` the wrapped payload, as a whole reply gives
 * it) and stops it, as the Anthropic API streams one — not an empty `thinking` block whose signature
 * carries the data. The other protocols have no redacted block and stream it as before.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../core/events.ts';
import type { CanonicalResponse } from '../core/request.ts';
import { emptyUsage } from '../core/usage.ts';
import { serializeFrame } from './frames.ts';
import { codecs } from './index.ts';
import { taggedOpaque } from './opaque.ts';
import type { WireFrame } from './types.ts';

const part = {
  type: 'reasoning' as const,
  text: '',
  redacted: true,
  data: 'EmwKAhgB',
  provider: 'anthropic',
};
const response: CanonicalResponse = {
  content: [part, { type: 'text', text: 'hi' }],
  finishReason: 'completed',
  usage: emptyUsage(),
} as CanonicalResponse;

function events(startRedacted: boolean): StreamEvent[] {
  return [
    { type: 'message-start', requestId: 'req_1' as never, model: 'anthropic:claude', provider: 'anthropic' },
    startRedacted
      ? { type: 'reasoning-start', index: 0, redacted: true }
      : { type: 'reasoning-start', index: 0 },
    { type: 'reasoning-end', index: 0, redacted: true, data: 'EmwKAhgB' },
    { type: 'text-start', index: 1 },
    { type: 'text-delta', index: 1, delta: 'hi' },
    { type: 'text-end', index: 1 },
    { type: 'finish', response },
  ];
}

function encode(codec: keyof typeof codecs, stream: StreamEvent[]): WireFrame[] {
  const encoder = codecs[codec].createStreamEncoder({ model: 'claude', opaque: taggedOpaque });
  return stream.flatMap((event) => encoder.event(event));
}

describe('redacted reasoning, streamed', () => {
  it('Anthropic: a redacted_thinking block, started with its data and stopped, as a whole reply gives it', () => {
    const frames = encode('anthropic-messages', events(true)).map(
      (frame) => JSON.parse('data' in frame ? frame.data : '{}') as Record<string, unknown>,
    );
    const whole = codecs['anthropic-messages'].encodeResponse(response, {
      model: 'claude',
      opaque: taggedOpaque,
    }) as { content: unknown[] };
    const blockEvents = frames.filter((frame) => String(frame.type).startsWith('content_block'));
    expect(blockEvents.slice(0, 2)).toEqual([
      { type: 'content_block_start', index: 0, content_block: whole.content[0] },
      { type: 'content_block_stop', index: 0 },
    ]);
    expect(whole.content[0]).toMatchObject({ type: 'redacted_thinking' });
    expect(taggedOpaque.unwrap((whole.content[0] as { data: string }).data)).toEqual({
      provider: 'anthropic',
      data: 'EmwKAhgB',
    });
    expect(
      frames.filter((frame) => frame.type === 'content_block_start').map((frame) => frame.index),
    ).toEqual([0, 1]);
  });

  it('Anthropic: a part that started redacted but got text is a thinking block, as a whole reply has it', () => {
    const stream = events(true);
    stream.splice(2, 0, { type: 'reasoning-delta', index: 0, delta: 'visible' });
    const frames = encode('anthropic-messages', stream).map(
      (frame) => JSON.parse('data' in frame ? frame.data : '{}') as Record<string, unknown>,
    );
    const whole = codecs['anthropic-messages'].encodeResponse(
      { ...response, content: [{ ...part, text: 'visible' }] },
      { model: 'claude', opaque: taggedOpaque },
    ) as { content: Array<{ signature: string }> };
    expect(frames.filter((frame) => frame.index === 0 && frame.type !== 'ping')).toEqual([
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'visible' } },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'signature_delta', signature: whole.content[0]!.signature },
      },
      { type: 'content_block_stop', index: 0 },
    ]);
  });

  it('Anthropic: a part that started redacted and was cut before its data sends no block (not an empty thinking block without a signature)', () => {
    const cut: StreamEvent[] = [
      events(true)[0]!,
      { type: 'reasoning-start', index: 0, redacted: true },
      { type: 'reasoning-end', index: 0, incomplete: true },
      { type: 'text-start', index: 1 },
      { type: 'text-delta', index: 1, delta: 'hi' },
      { type: 'text-end', index: 1 },
      {
        type: 'finish',
        response: { ...response, content: [{ type: 'text', text: 'hi' }], finishReason: 'max-tokens' },
      },
    ];
    const frames = encode('anthropic-messages', cut).map(
      (frame) => JSON.parse('data' in frame ? frame.data : '{}') as Record<string, unknown>,
    );
    expect(frames.filter((frame) => frame.type === 'content_block_start')).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ]);
    expect(frames.map((frame) => frame.type)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    // Its data known at the cut: the redacted block, whole.
    cut[2] = { type: 'reasoning-end', index: 0, incomplete: true, data: 'EmwKAhgB' };
    const withData = encode('anthropic-messages', cut).map(
      (frame) => JSON.parse('data' in frame ? frame.data : '{}') as { content_block?: { type: string } },
    );
    expect(withData.flatMap((frame) => frame.content_block?.type ?? [])).toEqual([
      'redacted_thinking',
      'text',
    ]);
  });

  it.each(['openai-chat', 'openai-responses', 'gemini'] as const)(
    '%s: the same frames as before the start said redacted',
    (codec) => {
      const strip = (frames: WireFrame[]) =>
        frames
          .map(serializeFrame)
          .join('')
          .replace(
            /"(id|item_id|response_id|created_at|created|responseId|createTime|system_fingerprint)":("[^"]*"|\d+)/g,
            '',
          )
          .replace(/(chatcmpl|resp|msg|rs)_[A-Za-z0-9]+/g, '');
      expect(strip(encode(codec, events(true)))).toBe(strip(encode(codec, events(false))));
    },
  );
});
