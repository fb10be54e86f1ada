import { describe, expect, it } from 'vitest';
import { isContentEvent } from './content-events.ts';
import type { StreamEvent } from './events.ts';

const finish = (finishReason: string) =>
  ({ type: 'finish', response: { finishReason } }) as unknown as StreamEvent;

describe('isContentEvent', () => {
  it.each([
    [{ type: 'message-start' }, false],
    [{ type: 'usage' }, false],
    [{ type: 'text-start', index: 0 }, false],
    [{ type: 'tool-call-start', index: 0, id: 'c', name: 'f' }, false],
    [{ type: 'text-end', index: 0, incomplete: true }, false],
    [{ type: 'tool-call-end', index: 0, incomplete: true }, false],
    [{ type: 'text-end', index: 0 }, false],
    [{ type: 'tool-call-end', index: 0, id: 'c', input: {} }, true],
    [{ type: 'text-delta', index: 0, delta: 'x' }, true],
    [{ type: 'reasoning-start', index: 0 }, true],
    [{ type: 'tool-call-delta', index: 0, id: 'c', delta: '{' }, true],
  ])('%j → %s', (event, content) => {
    expect(isContentEvent(event as unknown as StreamEvent)).toBe(content);
  });

  it('a failed finish is not content; any other finish is', () => {
    expect(isContentEvent(finish('error'))).toBe(false);
    expect(isContentEvent(finish('completed'))).toBe(true);
    expect(isContentEvent(finish('cancelled'))).toBe(true);
  });
});
