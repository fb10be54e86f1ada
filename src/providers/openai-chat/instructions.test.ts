/**
 * A Chat host without `instructionsInPlace` (the default: chat templates that refuse a late system
 * message) gets every instruction in the leading message, with the WARN naming each one moved.
 */
import { expect, it } from 'vitest';
import type { Item } from '../../core/transcript.ts';
import { movedInstructionMessage } from '../common/projection.ts';
import { presets } from '../openai-compatible/presets.ts';
import { defaultQuirks, mergeQuirks } from './quirks.ts';
import { convertMessages } from './messages.ts';
import { createTestContext } from './test-support.ts';

const item = (kind: Item['kind'], text: string): Item => ({ kind, parts: [{ type: 'text', text }] });

it('a compatible host: a mid-conversation system message is joined into the leading one, with a WARN', () => {
  const context = createTestContext({ provider: 'groq', model: 'llama-3.3-70b-versatile' });
  const messages = convertMessages(
    [
      item('system', 'A'),
      item('user', 'Hi'),
      item('assistant', 'Hello.'),
      item('system', 'B'),
      item('user', 'Bye'),
    ],
    context,
    mergeQuirks(defaultQuirks, presets.groq.quirks),
  );
  expect(messages.map((message) => [message.role, message.content])).toEqual([
    ['system', 'A\n\nB'],
    ['user', 'Hi'],
    ['assistant', 'Hello.'],
    ['user', 'Bye'],
  ]);
  expect(context.warnings).toEqual([
    {
      message: movedInstructionMessage,
      fields: {
        messageId: null,
        itemIndex: 3,
        kind: 'system',
        reason: 'the provider takes one system prompt, before the conversation',
      },
    },
  ]);
});
