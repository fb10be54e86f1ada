/**
 * A reply cut short (output limit, content filter) reaches a Responses client `incomplete`, and so
 * does its last message item, as OpenAI sends it: whole, and streamed in the item's
 * `output_item.done` and the final response. A message that ended before the reply went on is
 * `completed`, and a reply that completed leaves its message `completed`.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../core/events.ts';
import type { FinishReason } from '../../core/finish-reason.ts';
import type { CanonicalResponse } from '../../core/request.ts';
import type { Part } from '../../core/transcript.ts';
import { emptyUsage } from '../../core/usage.ts';
import { taggedOpaque } from '../opaque.ts';
import type { EncodeContext } from '../types.ts';
import { createStreamEncoder, encodeResponse } from './response.ts';

const context = { model: 'm', opaque: taggedOpaque } as unknown as EncodeContext;
const call: Part = { type: 'tool-call', id: 'call_1' as never, name: 'f', input: {} };

function reply(finishReason: FinishReason, content: Part[]): CanonicalResponse {
  return {
    content,
    finishReason,
    usage: emptyUsage(),
    provider: 'anthropic',
  } as unknown as CanonicalResponse;
}

type Item = { type: string; status?: string };
type Frame = {
  type: string;
  sequence_number: number;
  item?: Item;
  response?: { status: string; output: Item[] };
};

/** The events of a reply's parts (text, then a call), a usage event and the finish. */
function streamed(response: CanonicalResponse): Frame[] {
  const events: StreamEvent[] = [
    { type: 'message-start', requestId: 'req_1' as never, model: 'anthropic:claude', provider: 'anthropic' },
  ];
  response.content.forEach((part, index) => {
    if (part.type === 'text')
      events.push(
        { type: 'text-start', index },
        { type: 'text-delta', index, delta: part.text },
        { type: 'text-end', index },
      );
    else if (part.type === 'tool-call')
      events.push(
        { type: 'tool-call-start', index, id: part.id, name: part.name },
        { type: 'tool-call-end', index, id: part.id, input: {} },
      );
  });
  events.push({ type: 'usage', usage: emptyUsage() }, { type: 'finish', response });
  const encoder = createStreamEncoder(context);
  return events
    .flatMap((event) => encoder.event(event))
    .map((frame) => JSON.parse('data' in frame ? frame.data : '{}') as Frame);
}

const doneStatuses = (frames: Frame[]) =>
  frames.filter((frame) => frame.type === 'response.output_item.done').map((frame) => frame.item?.status);

describe('a Responses client’s message item in a reply cut short', () => {
  it.each<FinishReason>(['max-tokens', 'content-filter'])(
    '%s: whole, the message is incomplete',
    (finish) => {
      const body = encodeResponse(reply(finish, [{ type: 'text', text: 'partial answ' }]), context) as {
        status: string;
        output: Item[];
      };
      expect(body.status).toBe('incomplete');
      expect(body.output.map((item) => item.status)).toEqual(['incomplete']);
    },
  );

  it('whole: only the last item is cut; a reply that completed keeps its message completed', () => {
    const text = (value: string): Part => ({ type: 'text', text: value });
    const cut = encodeResponse(reply('max-tokens', [text('a'), call, text('b')]), context) as {
      output: Item[];
    };
    expect(cut.output.map((item) => item.status)).toEqual(['completed', 'completed', 'incomplete']);
    const done = encodeResponse(reply('completed', [text('a')]), context) as { output: Item[] };
    expect(done.output.map((item) => item.status)).toEqual(['completed']);
  });

  it('streamed: the output_item.done and the final response say incomplete, in sequence', () => {
    const frames = streamed(reply('max-tokens', [{ type: 'text', text: 'partial answ' }]));
    expect(doneStatuses(frames)).toEqual(['incomplete']);
    const final = frames.at(-1)!;
    expect(final.type).toBe('response.incomplete');
    expect(final.response?.output.map((item) => item.status)).toEqual(['incomplete']);
    expect(frames.map((frame) => frame.sequence_number)).toEqual(frames.map((_, index) => index));
    expect(frames.at(-2)?.type).toBe('response.output_item.done');
  });

  it('streamed: a message the reply went on after is done, completed, before the next item is added', () => {
    const frames = streamed(reply('max-tokens', [{ type: 'text', text: 'a' }, call]));
    expect(doneStatuses(frames)).toEqual(['completed', 'completed']);
    const types = frames.map((frame) => frame.type);
    expect(types.indexOf('response.output_item.done')).toBeLessThan(
      types.lastIndexOf('response.output_item.added'),
    );
    expect(frames.map((frame) => frame.sequence_number)).toEqual(frames.map((_, index) => index));
  });

  it('streamed: a reply that completed ends its message completed', () => {
    const frames = streamed(reply('completed', [{ type: 'text', text: 'all of it' }]));
    expect(doneStatuses(frames)).toEqual(['completed']);
    expect(frames.at(-1)?.response?.output.map((item) => item.status)).toEqual(['completed']);
  });
});
