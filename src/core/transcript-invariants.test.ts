import { describe, expect, it } from 'vitest';
import type { ToolCallId } from './ids.ts';
import type { Item } from './transcript.ts';
import { checkTranscript } from './transcript-invariants.ts';

const call = (id: string): Item => ({
  kind: 'assistant',
  parts: [{ type: 'tool-call', id: id as ToolCallId, name: 'read', input: {} }],
});
const result = (id: string): Item => ({
  kind: 'tool',
  parts: [
    { type: 'tool-result', callId: id as ToolCallId, output: { type: 'text', text: 'ok' }, isError: false },
  ],
});

describe('checkTranscript', () => {
  it('accepts a well-formed tool exchange', () => {
    expect(checkTranscript([call('a'), result('a')])).toEqual([]);
  });
  it('flags an empty tool-call id', () => {
    expect(checkTranscript([call('')]).map((violation) => violation.rule)).toContain('tool-call-id-empty');
  });
  it('flags a duplicated tool-call id', () => {
    expect(checkTranscript([call('a'), result('a'), call('a')]).map((violation) => violation.rule)).toEqual([
      'tool-call-id-duplicate',
    ]);
  });
  it('flags an orphaned tool result (answers no earlier call)', () => {
    expect(checkTranscript([result('a'), call('a')]).map((violation) => violation.rule)).toEqual([
      'tool-result-orphaned',
      'tool-call-unanswered',
    ]);
  });
  it('flags a tool call that no later result answers, naming its id', () => {
    expect(checkTranscript([call('a'), result('a'), call('b')])).toMatchObject([
      { rule: 'tool-call-unanswered', itemIndex: 2, partIndex: 0, message: expect.stringContaining('b') },
    ]);
  });
  it('flags a tool item holding something other than tool results', () => {
    const item: Item = { kind: 'tool', parts: [{ type: 'text', text: 'hi' }] };
    expect(checkTranscript([item])).toMatchObject([
      { rule: 'tool-item-content', itemIndex: 0, partIndex: 0 },
    ]);
  });
});
