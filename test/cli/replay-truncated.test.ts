/**
 * Honest endings: every recorded stream, cut short before its finish signal, replays as an error.
 * The truncated copies are generated here (in a temporary folder), never committed.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runReplay } from '../../src/cli/replay-command.ts';
import type { StreamEvent } from '../../src/core/events.ts';
import type { CanonicalResponse } from '../../src/core/request.ts';
import type { Part } from '../../src/core/transcript.ts';
import type { EmulatorProtocolId } from '../../src/testing/emulator/index.ts';
import { inferProtocolFromFile } from '../../src/testing/emulator/routing.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';
import { apiFor, wireProtocols } from '../support/provider-types.ts';
import { readRecorded, recordedDir } from '../support/fixtures.ts';

/** Every recorded streaming file, at any depth. */
function recordedStreams(directory = recordedDir): string[] {
  return readdirSync(directory, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) return recordedStreams(path);
      return entry.name.endsWith('.chunks.txt') ? [path] : [];
    })
    .sort();
}

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a line carries the protocol's finish signal. */
function carriesFinishSignal(protocol: EmulatorProtocolId, line: string): boolean {
  const payload = parseLine(line);
  if (payload === undefined) return false;
  switch (protocol) {
    case 'openai-chat':
      return /"finish_reason"\s*:\s*"[^"]/.test(line);
    case 'anthropic-messages':
    case 'bedrock-invoke':
    case 'vertex-anthropic':
      return payload.type === 'message_stop';
    case 'bedrock-converse':
      return 'messageStop' in payload;
    case 'gemini':
      return /"finishReason"\s*:/.test(line) || /"blockReason"\s*:/.test(line);
    case 'openai-responses':
      return ['response.completed', 'response.incomplete', 'response.failed', 'error'].includes(
        payload.type as string,
      );
  }
}

/** Cuts of one file that end before the finish signal: just before it, and at half the lines. */
function truncatedCuts(protocol: EmulatorProtocolId, text: string): Array<{ name: string; lines: string[] }> {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const signal = lines.findIndex((line) => carriesFinishSignal(protocol, line));
  const beforeSignal = signal === -1 ? lines.length : signal;
  const half = Math.min(Math.floor(lines.length / 2), beforeSignal);
  const cuts = [{ name: 'before-finish', lines: lines.slice(0, beforeSignal) }];
  if (half !== beforeSignal) cuts.push({ name: 'half', lines: lines.slice(0, half) });
  return cuts;
}

async function replay(file: string, protocol: EmulatorProtocolId) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runReplay(file, apiFor(protocol), {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
  });
  return { code, stdout, stderr, events: stdout.map((line) => JSON.parse(line) as StreamEvent) };
}

function finishOf(events: StreamEvent[]): CanonicalResponse {
  const last = events.at(-1);
  if (last?.type !== 'finish') throw new Error('the replay printed no finish event');
  return last.response;
}

function textOf(content: Part[]): string {
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function isIncomplete(part: Part | undefined): boolean {
  return part !== undefined && 'incomplete' in part && part.incomplete === true;
}

/** Anthropic blocks the cut left open (started, never stopped), counted for text, thinking and tool_use. */
function openAnthropicBlocks(lines: string[]): number {
  const open = new Set<number>();
  for (const line of lines) {
    const event = parseLine(line);
    const block = event?.content_block as { type?: string } | undefined;
    if (event?.type === 'message_start') open.clear();
    if (event?.type === 'content_block_start' && ['text', 'thinking', 'tool_use'].includes(block?.type ?? ''))
      open.add(event.index as number);
    if (event?.type === 'content_block_stop') open.delete(event.index as number);
  }
  return open.size;
}

/** The lines an Anthropic stream reads: up to a splice (another message starting in an open one). */
function linesBeforeSplice(protocol: EmulatorProtocolId, lines: string[]): string[] {
  if (protocol !== 'anthropic-messages') return lines;
  let openId: unknown;
  for (let index = 0; index < lines.length; index++) {
    const event = parseLine(lines[index] ?? '');
    const id = (event?.message as { id?: unknown } | undefined)?.id;
    if (event?.type === 'message_start' && openId !== undefined && id !== openId)
      return lines.slice(0, index);
    if (event?.type === 'message_start') openId = id;
    if (event?.type === 'message_stop') openId = undefined;
  }
  return lines;
}

/** Responses output items (message, reasoning, function call) added and never done. */
function openResponsesItems(lines: string[]): number {
  const open = new Set<unknown>();
  for (const line of lines) {
    const event = parseLine(line);
    const item = event?.item as { type?: string } | undefined;
    if (!['message', 'reasoning', 'function_call'].includes(item?.type ?? '')) continue;
    if (event?.type === 'response.output_item.added') open.add(event.output_index);
    if (event?.type === 'response.output_item.done') open.delete(event.output_index);
  }
  return open.size;
}

function isSpliced(protocol: EmulatorProtocolId, lines: string[]): boolean {
  return linesBeforeSplice(protocol, lines).length < lines.length;
}

/**
 * Converse blocks a cut left open (a start or delta without its `contentBlockStop`). Parts are
 * sequential: a block that another block follows was ended by it (hand-written streams skip stops).
 */
function openConverseBlocks(lines: string[]): number {
  const open = new Set<unknown>();
  for (const line of lines) {
    const event = parseLine(line) ?? {};
    const [type, payload] = (Object.entries(event)[0] ?? []) as [string, Record<string, unknown>];
    const index = payload?.contentBlockIndex;
    if ((type === 'contentBlockStart' || type === 'contentBlockDelta') && !open.has(index)) {
      open.clear();
      open.add(index);
    }
    if (type === 'contentBlockStop') open.delete(payload?.contentBlockIndex);
  }
  return open.size;
}

/** The parts the runtime closed carry the marker; what the provider finished does not. */
function expectMarkers(protocol: EmulatorProtocolId, lines: string[], content: Part[]): void {
  const last = content.at(-1);
  if (protocol === 'bedrock-converse') {
    expect(content.filter(isIncomplete)).toHaveLength(openConverseBlocks(lines));
    return;
  }
  if (protocol === 'anthropic-messages') {
    expect(content.filter(isIncomplete)).toHaveLength(
      openAnthropicBlocks(linesBeforeSplice(protocol, lines)),
    );
    return;
  }
  if (protocol === 'openai-responses') {
    // Output items the cut left open (added, never done) are the ones the runtime closed.
    const open = openResponsesItems(lines);
    if (open === 0) expect(content.filter(isIncomplete)).toEqual([]);
    else expect(content.some(isIncomplete)).toBe(true);
    return;
  }
  if (protocol === 'openai-chat') {
    for (const part of content) if (part.type === 'tool-call') expect(part.incomplete).toBe(true);
  }
  if (last?.type === 'text' || last?.type === 'reasoning') expect(last.incomplete).toBe(true);
}

const workDirectory = mkdtempSync(join(tmpdir(), 'switchyard-truncated-'));
afterAll(() => rmSync(workDirectory, { recursive: true, force: true }));

const streams = recordedStreams().map((file) => ({
  label: relative(recordedDir, file),
  file,
  protocol: inferProtocolFromFile(file),
}));

describe('switchyard replay of truncated copies of every recorded stream', () => {
  it('finds every recorded stream of every protocol', () => {
    const protocols = new Set(streams.map((stream) => stream.protocol));
    // Claude on Bedrock (InvokeModel) and on Vertex has no recordings of its own: its bodies are
    // Anthropic's, replayed from anthropic/ (test/fixtures/NOTICE.md).
    const withoutRecordings = ['bedrock-invoke', 'vertex-anthropic'];
    expect([...protocols].sort()).toEqual(
      wireProtocols.filter((protocol) => !withoutRecordings.includes(protocol)).sort(),
    );
    expect(streams.length).toBeGreaterThanOrEqual(100);
  });

  it.each(streams)('$label cut short exits 1 with the content it received', async ({ file, protocol }) => {
    const full = await replay(file, protocol);
    const fullText = full.events.length > 0 ? textOf(finishOf(full.events).content) : '';
    for (const cut of truncatedCuts(protocol, readRecorded(file))) {
      const path = join(workDirectory, `${basename(file, '.chunks.txt')}.${cut.name}.chunks.txt`);
      writeFileSync(path, cut.lines.join('\n'));
      const { code, stderr, events } = await replay(path, protocol);
      expect({ cut: cut.name, code }).toEqual({ cut: cut.name, code: 1 });
      expect(stderr).toHaveLength(1);
      // A cut that still holds a splice (a second message_start in an open message) fails on it first.
      // A file the whole replay already rejects (e.g. a malformed first line) may fail on that first.
      const expected = isSpliced(protocol, cut.lines)
        ? /^network: .*spliced/
        : full.code === 1
          ? new RegExp(
              `^(network: .*cut short \\(stream_truncated\\)|${full.stderr[0]?.split(':')[0] ?? 'network'}: )`,
            )
          : /^network: .*cut short \(stream_truncated\)/;
      expect(stderr[0]).toMatch(expected);
      assertStreamInvariants(events);
      const response = finishOf(events);
      expect(response.finishReason).toBe('error');
      // The content received is kept and printed: a prefix of what the whole stream gives.
      const text = textOf(response.content);
      expect(fullText.startsWith(text)).toBe(true);
      const deltas = events.filter((event) => event.type === 'text-delta');
      if (deltas.length > 0) expect(text).not.toBe('');
      // Markers are checked where the cut is what ended the stream (not an earlier malformed line).
      if (/stream_truncated|spliced/.test(stderr[0] ?? ''))
        expectMarkers(protocol, cut.lines, response.content);
    }
  });
});
