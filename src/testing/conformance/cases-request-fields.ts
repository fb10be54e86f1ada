/**
 * Conformance case: what a request asks for reaches the wire. The emulator answers whatever a
 * request carried, so a field the adapter forgets to send (tools, the system prompt, the output
 * cap, sampling settings) is invisible in the answer: the case reads the body the emulator received.
 */
import assert from 'node:assert/strict';
import type { Capabilities } from '../../core/capabilities.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { systemText, userText } from '../../core/transcript.ts';
import { collectStream } from '../collect.ts';
import type { RecordedRequest } from '../emulator/types.ts';
import { assertStreamInvariants } from '../invariants.ts';
import { finishOf, firstText } from './assertions.ts';
import type { MemoryLogger, SuiteCase } from './types.ts';

/** Every string and number a JSON value holds, at any depth. */
export function wireValues(value: unknown, into: Array<string | number> = []): Array<string | number> {
  if (typeof value === 'string' || typeof value === 'number') into.push(value);
  else if (Array.isArray(value)) for (const item of value) wireValues(item, into);
  else if (typeof value === 'object' && value !== null)
    for (const item of Object.values(value)) wireValues(item, into);
  return into;
}

/** One request field and how to find its value in the wire body. */
interface WireField {
  field: string;
  /** `answer` is the text the caller got. */
  found(values: ReadonlyArray<string | number>, answer: string): boolean;
}

const systemPrompt = 'Answer in one short sentence, please.';
const toolName = 'lookup_weather';
const stopSequence = 'ZQX-STOP';
const temperature = 0.37;
const maxOutputTokens = 333;

/** The request of the case and the fields it expects on the wire, for what the adapter declares. */
function fieldsRequest(
  declared: Capabilities,
  request: (overrides?: Partial<CanonicalRequest>) => CanonicalRequest,
): [CanonicalRequest, WireField[]] {
  const fields: WireField[] = [
    { field: 'temperature', found: (values) => values.includes(temperature) },
    // A provider that takes no stop sequences has them applied locally (the answer is cut there).
    {
      field: 'stopSequences',
      found: (values, answer) => values.includes(stopSequence) || !answer.includes(stopSequence),
    },
  ];
  const overrides: Partial<CanonicalRequest> = { temperature, stopSequences: [stopSequence] };
  if (declared.maxOutputTokens === 0 || declared.maxOutputTokens >= maxOutputTokens) {
    overrides.maxOutputTokens = maxOutputTokens;
    fields.push({ field: 'maxOutputTokens', found: (values) => values.includes(maxOutputTokens) });
  }
  if (declared.systemPrompt) {
    overrides.transcript = [systemText(systemPrompt), userText('Hello')];
    fields.push({
      field: 'system',
      found: (values) => values.some((value) => typeof value === 'string' && value.includes(systemPrompt)),
    });
  }
  if (declared.tools) {
    overrides.tools = [
      {
        name: toolName,
        description: 'Looks up the weather of a city.',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ];
    fields.push({ field: 'tools', found: (values) => values.includes(toolName) });
  }
  return [request(overrides), fields];
}

/** Whether a WARN logged since `from` names the field (a field dropped on purpose, said out loud). */
function warned(logger: MemoryLogger, from: number, field: string): boolean {
  return logger.entries
    .slice(from)
    .some((entry) => `${entry.message} ${JSON.stringify(entry.fields)}`.includes(field));
}

/** Asserts each field reached the wire body of `sent`, or a WARN said it was left out. */
export function assertOnTheWire(
  sent: RecordedRequest | undefined,
  fields: readonly WireField[],
  logger: MemoryLogger,
  warningsFrom: number,
  answer: string,
): void {
  const values = wireValues(sent?.body);
  for (const { field, found } of fields) {
    assert.ok(
      found(values, answer) || warned(logger, warningsFrom, field),
      `${field} never reached the wire (no value in the body the emulator received, and no WARN naming it)`,
    );
  }
}

export const requestFieldCases: SuiteCase[] = [
  {
    name: 'request-fields',
    title:
      'sends what the request asks: tools, the system prompt, maxOutputTokens, temperature and stop sequences reach the wire body',
    async run({ adapter, declared, emulator, logger, options, request }) {
      const [asked, fields] = fieldsRequest(declared, request);
      emulator.enqueue({
        type: 'scripted',
        protocol: options.protocol,
        // The stop sequence in the answer: an adapter that neither sends it nor cuts there is seen.
        content: [{ type: 'text', text: `Mild. ${stopSequence} and more` }],
      });
      const warningsFrom = logger.entries.length;
      const before = emulator.requests.length;
      const { events, error } = await collectStream(adapter.stream(asked));
      assert.equal(error, undefined);
      assertStreamInvariants(events);
      const answer = firstText(finishOf(events));
      assert.equal(emulator.requests.length - before, 1, 'one request reached the wire');
      assertOnTheWire(emulator.requests.at(-1), fields, logger, warningsFrom, answer);
    },
  },
];
