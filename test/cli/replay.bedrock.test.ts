/**
 * `switchyard replay --protocol bedrock` on every Bedrock recording (test/fixtures/recorded/bedrock and
 * its branches/), each checked against what the recording itself holds: text, reasoning (and its
 * signature), tool calls, the stop reason and usage, read by a small oracle independent of the
 * adapter. Envelope files hold bodies or raw event-stream bytes: each is replayed on its own.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runReplay } from '../../src/cli/replay-command.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';
import { builtinProviderType } from '../support/provider-types.ts';
import { listRecorded } from '../support/fixtures.ts';

type Json = Record<string, unknown>;

/** What the recording says the answer is. */
interface Expected {
  text: string;
  reasoning: string;
  signatures: string[];
  tools: Array<{ name: string; input: unknown }>;
  stopReason: string | undefined;
  usage: { input?: number; output?: number };
}

const finishByStop: Record<string, string> = {
  end_turn: 'completed',
  tool_use: 'tool-call',
  max_tokens: 'max-tokens',
  stop_sequence: 'stop-sequence',
  guardrail_intervened: 'content-filter',
  content_filtered: 'content-filter',
  model_context_window_exceeded: 'max-tokens',
};

function usageOf(usage: unknown): Expected['usage'] {
  const record = (usage ?? {}) as Json;
  return {
    input: record.inputTokens as number | undefined,
    output: record.outputTokens as number | undefined,
  };
}

/** The oracle over Converse events (`{"<type>": payload}` lines, or decoded frames). */
function expectFromEvents(events: Array<[string, Json]>): Expected {
  const expected: Expected = {
    text: '',
    reasoning: '',
    signatures: [],
    tools: [],
    stopReason: undefined,
    usage: {},
  };
  const inputs = new Map<number, { name: string; input: string }>();
  let signature = '';
  for (const [type, payload] of events) {
    const delta = (payload.delta ?? {}) as Json;
    const index = payload.contentBlockIndex as number;
    const start = (payload.start ?? {}) as Json;
    if (type === 'contentBlockStart' && start.toolUse !== undefined)
      inputs.set(index, { name: (start.toolUse as Json).name as string, input: '' });
    if (type === 'contentBlockDelta') {
      if (typeof delta.text === 'string') expected.text += delta.text;
      const reasoning = (delta.reasoningContent ?? {}) as Json;
      if (typeof reasoning.text === 'string') expected.reasoning += reasoning.text;
      if (typeof reasoning.signature === 'string') signature += reasoning.signature;
      const tool = delta.toolUse as Json | undefined;
      if (tool !== undefined) inputs.get(index)!.input += tool.input as string;
    }
    if (type === 'contentBlockStop' && signature !== '') {
      expected.signatures.push(signature);
      signature = '';
    }
    if (type === 'messageStop') expected.stopReason = payload.stopReason as string;
    if (type === 'metadata') expected.usage = usageOf(payload.usage);
  }
  for (const { name, input } of inputs.values())
    expected.tools.push({ name, input: input.trim() === '' ? {} : JSON.parse(input) });
  return expected;
}

function expectFromBody(body: Json): Expected {
  const content = (((body.output as Json).message as Json).content ?? []) as Json[];
  const expected: Expected = {
    text: '',
    reasoning: '',
    signatures: [],
    tools: [],
    stopReason: body.stopReason as string,
    usage: usageOf(body.usage),
  };
  for (const block of content) {
    if (typeof block.text === 'string') expected.text += block.text;
    // A citationsContent block is answer text too: its `content[].text`, cited.
    for (const entry of (((block.citationsContent ?? {}) as Json).content ?? []) as Json[])
      if (typeof entry.text === 'string') expected.text += entry.text;
    const reasoning = ((block.reasoningContent ?? {}) as Json).reasoningText as Json | undefined;
    if (reasoning !== undefined) {
      expected.reasoning += reasoning.text as string;
      if (typeof reasoning.signature === 'string') expected.signatures.push(reasoning.signature);
    }
    const tool = block.toolUse as Json | undefined;
    if (tool !== undefined) expected.tools.push({ name: tool.name as string, input: tool.input });
  }
  return expected;
}

/** Decodes raw event-stream bytes for the oracle (prelude lengths only; the adapter checks CRCs). */
function decodeFrames(bytes: Buffer): Array<[string, Json]> {
  const events: Array<[string, Json]> = [];
  for (let offset = 0; offset < bytes.length;) {
    const total = bytes.readUInt32BE(offset);
    const headersLength = bytes.readUInt32BE(offset + 4);
    let cursor = offset + 12;
    const headers: Record<string, string> = {};
    while (cursor < offset + 12 + headersLength) {
      const nameLength = bytes[cursor]!;
      const name = bytes.toString('utf8', cursor + 1, cursor + 1 + nameLength);
      const valueLength = bytes.readUInt16BE(cursor + 2 + nameLength);
      headers[name] = bytes.toString('utf8', cursor + 4 + nameLength, cursor + 4 + nameLength + valueLength);
      cursor += 4 + nameLength + valueLength;
    }
    const payload = bytes.toString('utf8', offset + 12 + headersLength, offset + total - 4);
    events.push([headers[':event-type'] ?? headers[':exception-type'] ?? '', JSON.parse(payload) as Json]);
    offset += total;
  }
  return events;
}

interface Case {
  name: string;
  file: string;
  expected?: Expected;
  /** The error class the replay must end with (a recorded error). */
  errorClass?: string;
}

const scratch = mkdtempSync(join(tmpdir(), 'switchyard-bedrock-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function scratchFile(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

/** The envelope files, as the bodies and streams inside them. */
function envelopeCases(file: string, record: Json): Case[] {
  const name = basename(file);
  const bodies: Array<[string, Json, number]> = [];
  if (record.response !== undefined && (record.response as Json).bodyBase64 !== undefined) {
    const base64 = (record.response as Json).bodyBase64 as string;
    const path = scratchFile(`${name}.eventstream.base64.txt`, base64);
    return [
      {
        name: `${name} (raw stream)`,
        file: path,
        expected: expectFromEvents(decodeFrames(Buffer.from(base64, 'base64'))),
      },
    ];
  }
  if (typeof record.deterministicEventStreamBase64 === 'string') {
    const base64 = record.deterministicEventStreamBase64;
    const path = scratchFile(`${name}.eventstream.base64.txt`, base64);
    return [
      {
        name: `${name} (constructed stream)`,
        file: path,
        expected: expectFromEvents(decodeFrames(Buffer.from(base64, 'base64'))),
      },
    ];
  }
  if (record.body !== undefined) bodies.push([name, record.body as Json, record.status as number]);
  for (const [key, value] of Object.entries((record.responses ?? {}) as Json)) {
    const entry = value as Json;
    bodies.push([`${name} ${key}`, entry.body as Json, entry.status as number]);
  }
  for (const key of ['withReasoningConfig', 'withoutReasoningConfig']) {
    const entry = record[key] as Json | undefined;
    if (entry !== undefined) bodies.push([`${name} ${key}`, entry.body as Json, entry.status as number]);
  }
  return bodies.map(([label, body, status], index) => {
    const path = scratchFile(`${name}.${index}.json`, JSON.stringify(body));
    return status >= 400
      ? { name: label, file: path, errorClass: 'invalid_request' }
      : { name: label, file: path, expected: expectFromBody(body) };
  });
}

function casesOf(file: string): Case[] {
  const name = basename(file);
  const text = readFileSync(file, 'utf8');
  if (name.endsWith('.eventstream.base64.txt')) return [{ name, file, errorClass: 'server_error' }];
  if (name.endsWith('.chunks.txt')) {
    const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
    const events = lines.map((line) => Object.entries(JSON.parse(line) as Json)[0] as [string, Json]);
    // Not a stream: the one line is an UnknownOperationException body (the README says so).
    if (events[0]?.[0] === 'Output') return [{ name, file, errorClass: 'network' }];
    return [{ name, file, expected: expectFromEvents(events) }];
  }
  const record = JSON.parse(text) as Json;
  if (record.output !== undefined) return [{ name, file, expected: expectFromBody(record) }];
  if (typeof record.message === 'string') return [{ name, file, errorClass: 'invalid_request' }];
  if (record.Output !== undefined) return [{ name, file, errorClass: 'invalid_request' }];
  return envelopeCases(file, record);
}

const files = [...listRecorded('bedrock'), ...listRecorded('bedrock/branches')].filter(
  (file) => !file.endsWith('.tsv'),
);
const cases = files.flatMap(casesOf);

interface Finish {
  type: 'finish';
  response: {
    content: Array<{ type: string; text?: string; signature?: string; name?: string; input?: unknown }>;
    finishReason: string;
    usage: { input: number; output: number };
  };
}

describe('switchyard replay --protocol bedrock', () => {
  it('covers every recording (95 files; envelopes expand to their bodies), most with content to compare', () => {
    expect(files).toHaveLength(95);
    expect(cases.length).toBeGreaterThanOrEqual(95);
    const withContent = cases.filter(
      (entry) => (entry.expected?.text ?? '') !== '' || (entry.expected?.tools.length ?? 0) > 0,
    );
    expect(withContent.length).toBeGreaterThan(60);
    expect(cases.filter((entry) => (entry.expected?.signatures.length ?? 0) > 0).length).toBeGreaterThan(3);
  });

  it.each(cases.map((entry) => [entry.name, entry] as const))('%s', async (_, entry) => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const code = await runReplay(entry.file, builtinProviderType('bedrock'), {
      stdout: (line) => stdout.push(line),
      stderr: (line) => stderr.push(line),
    });
    const events = stdout.map((line) => JSON.parse(line) as { type: string });
    if (entry.errorClass !== undefined) {
      expect(code).toBe(1);
      expect(stderr.join('\n')).toMatch(new RegExp(`^${entry.errorClass}:`));
      return;
    }
    expect({ code, stderr }).toEqual({ code: 0, stderr: [] });
    if (events.length > 1) assertStreamInvariants(events as never);
    const { response } = events.at(-1) as Finish;
    const expected = entry.expected!;
    const join = (type: string) =>
      response.content
        .filter((part) => part.type === type)
        .map((part) => part.text)
        .join('');
    expect(join('text')).toBe(expected.text);
    expect(join('reasoning')).toBe(expected.reasoning);
    const signatures = response.content.filter(
      (part) => part.type === 'reasoning' && part.signature !== undefined,
    );
    expect(signatures.map((part) => part.signature)).toEqual(expected.signatures);
    const tools = response.content
      .filter((part) => part.type === 'tool-call')
      .map(({ name, input }) => ({ name, input }));
    expect(tools).toEqual(expected.tools);
    if (expected.stopReason !== undefined)
      expect(response.finishReason).toBe(finishByStop[expected.stopReason] ?? 'other');
    if (expected.usage.input !== undefined) expect(response.usage.input).toBe(expected.usage.input);
    if (expected.usage.output !== undefined) expect(response.usage.output).toBe(expected.usage.output);
  });
});
