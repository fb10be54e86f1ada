/**
 * Converse takes one `system`, before the messages: an instruction after the conversation began is
 * joined into it, with the projection WARN naming the message.
 */
import { expect, it } from 'vitest';
import type { Item } from '../../core/transcript.ts';
import { movedInstructionMessage } from '../common/projection.ts';
import { capabilitiesFor } from './capabilities.ts';
import { convertMessages } from './messages.ts';
import { createTestContext } from './test-support.ts';

const claude = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const item = (kind: Item['kind'], text: string): Item => ({ kind, parts: [{ type: 'text', text }] });

it('a mid-conversation developer message is joined into system, with a WARN naming its index', () => {
  const context = createTestContext('bedrock', claude, capabilitiesFor(claude));
  const converted = convertMessages(
    [
      item('system', 'Be terse.'),
      item('user', 'Hi'),
      item('assistant', 'Hello.'),
      { ...item('developer', 'Answer in French.'), id: 'msg_late' as never },
      item('user', 'How are you?'),
    ],
    context,
  );
  expect(converted.system).toBe('Be terse.\n\nAnswer in French.');
  expect(context.logger.entries.filter((entry) => entry.message === movedInstructionMessage)).toEqual([
    {
      message: movedInstructionMessage,
      fields: expect.objectContaining({ messageId: 'msg_late', itemIndex: 3, kind: 'developer' }) as unknown,
    },
  ]);
});

it('instructions that lead the conversation move nowhere: no WARN', () => {
  const context = createTestContext('bedrock', claude, capabilitiesFor(claude));
  convertMessages([item('system', 'A'), item('developer', 'B'), item('user', 'Hi')], context);
  expect(context.logger.entries.filter((entry) => entry.message === movedInstructionMessage)).toEqual([]);
});
