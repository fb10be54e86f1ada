/** Deterministic SSE payloads (per protocol × scenario) the bench server serves and the client checks against. */
import type { JsonObject } from '../src/core/json.ts';
import { responsesFrames } from './responses-payload.ts';

/** The wire protocols benchmarked. */
export type Protocol = 'anthropic' | 'openai' | 'responses' | 'gemini';
/** A long text answer, or one tool call with a large streamed input. */
export type Scenario = 'text' | 'tool';
/** One large write, or many small writes of 1–4 events. */
export type Delivery = 'bulk' | 'drip';
/**
 * How the Gemini tool call is streamed: `partial-args` (one `functionCall.partialArgs` entry per SSE
 * event, Gemini 3 `streamFunctionCallArguments`) or `whole-call` (one `functionCall` with every row).
 */
export type GeminiToolFormat = 'partial-args' | 'whole-call';

export const protocols: readonly Protocol[] = ['anthropic', 'openai', 'responses', 'gemini'];
export const scenarios: readonly Scenario[] = ['text', 'tool'];
export const deliveries: readonly Delivery[] = ['bulk', 'drip'];

/** The name, description and JSON Schema of the benchmark tool, shared by every contender. */
export const benchTool: { name: string; description: string; schema: JsonObject } = {
  name: 'write_rows',
  description: 'Stores a table of rows.',
  schema: {
    type: 'object',
    properties: {
      rows: {
        type: 'array',
        items: {
          type: 'object',
          properties: { id: { type: 'integer' }, name: { type: 'string' } },
          required: ['id', 'name'],
        },
      },
    },
    required: ['rows'],
  },
};

/** The row of Switchyard's provider-type table (`src/registry/provider-type-table.ts`) that speaks each benchmarked protocol. */
export const providerTypeOf: Record<Protocol, string> = {
  anthropic: 'anthropic',
  openai: 'openai',
  responses: 'openai-responses',
  gemini: 'gemini',
};

/** The model names put on the wire. */
export const models: Record<Protocol, string> = {
  anthropic: 'claude-sonnet-5-5',
  openai: 'gpt-4.1-mini-2025-04-14',
  responses: 'gpt-4.1-mini-2025-04-14',
  gemini: 'gemini-3-flash-preview',
};

/** One row of the tool input. */
export interface Row {
  id: number;
  name: string;
}

/** What a contender must end up with. */
export interface Expected {
  /** The full answer text (text scenario), else ''. */
  text: string;
  /** The tool input (tool scenario). */
  toolInput: { rows: Row[] } | undefined;
}

/** One response: its SSE frames (one buffer per event) and what they decode to. */
export interface Payload {
  protocol: Protocol;
  scenario: Scenario;
  /** Tokens (text) or argument fragments (tool): the µs/token denominator. */
  units: number;
  frames: Buffer[];
  bytes: number;
  expected: Expected;
}

const words = [
  'the',
  'stream',
  'of',
  'tokens',
  'flows',
  'through',
  'a',
  'small',
  'pipeline',
  'and',
  'every',
  'delta',
  'becomes',
  'an',
  'event',
  'café',
  'naïve',
  '—',
  'résumé',
  '日本',
  'data',
  'model',
  'answer',
  'is',
  'built',
  'once',
  'at',
  'end',
  'with',
  'no',
  'copies',
  'left',
  'over',
  'quickly',
  'emoji 🚀',
  'line\n',
  'quote "x"',
  'tab\tstop',
  'back\\slash',
  '42',
  '3.14',
  'done.',
];

/** The `count` text tokens: mostly ASCII words, some multibyte characters and JSON escapes. */
export function textTokens(count: number): string[] {
  const tokens: string[] = [];
  let state = 12345;
  for (let index = 0; index < count; index++) {
    state = (state * 1103515245 + 12345) >>> 0;
    const word = words[(state >>> 8) % words.length] as string;
    tokens.push(index === 0 ? word : ` ${word}`);
  }
  return tokens;
}

/** Rows of the tool input sized so its JSON text is about six characters per fragment. */
export function toolRows(count: number): Row[] {
  const rows: Row[] = [];
  for (let id = 0; id < count; id++) rows.push({ id, name: `row ${id} "${words[id % 12]}"` });
  return rows;
}

/** Cuts `text` into `count` fragments of near-equal length (never inside a surrogate pair). */
export function splitFragments(text: string, count: number): string[] {
  const fragments: string[] = [];
  let start = 0;
  for (let index = 1; index <= count; index++) {
    let end = Math.round((text.length * index) / count);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end++;
    fragments.push(text.slice(start, end));
    start = end;
  }
  return fragments;
}

function frame(data: unknown, event?: string): Buffer {
  const json = typeof data === 'string' ? data : JSON.stringify(data);
  return Buffer.from(event === undefined ? `data: ${json}\n\n` : `event: ${event}\ndata: ${json}\n\n`);
}

function rowsForFragments(fragments: number): Row[] {
  // One row is ~34 JSON characters: ~6 characters per fragment, like real tool-argument deltas.
  return toolRows(Math.max(1, Math.round((fragments * 6) / 34)));
}

function anthropicFrames(scenario: Scenario, units: number): { frames: Buffer[]; expected: Expected } {
  const start = {
    type: 'message_start',
    message: {
      id: 'msg_01BenchBenchBenchBench0001',
      type: 'message',
      role: 'assistant',
      model: models.anthropic,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 12,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 1,
      },
    },
  };
  const frames = [frame(start, 'message_start')];
  const typed = (type: string, body: object) => frame({ type, ...body }, type);
  let expected: Expected;
  if (scenario === 'text') {
    const tokens = textTokens(units);
    frames.push(typed('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
    frames.push(typed('ping', {}));
    for (const text of tokens)
      frames.push(typed('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }));
    expected = { text: tokens.join(''), toolInput: undefined };
  } else {
    const input = { rows: rowsForFragments(units) };
    const block = { type: 'tool_use', id: 'toolu_01BenchBenchBench0001', name: benchTool.name, input: {} };
    frames.push(typed('content_block_start', { index: 0, content_block: block }));
    frames.push(
      typed('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '' } }),
    );
    for (const partial_json of splitFragments(JSON.stringify(input), units))
      frames.push(
        typed('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json } }),
      );
    expected = { text: '', toolInput: input };
  }
  const stopReason = scenario === 'text' ? 'end_turn' : 'tool_use';
  frames.push(typed('content_block_stop', { index: 0 }));
  frames.push(
    typed('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: units },
    }),
  );
  frames.push(typed('message_stop', {}));
  return { frames, expected };
}

function openaiFrames(scenario: Scenario, units: number): { frames: Buffer[]; expected: Expected } {
  const base = {
    id: 'chatcmpl-BenchBenchBenchBenchBench01',
    object: 'chat.completion.chunk',
    created: 1770933892,
    model: models.openai,
    service_tier: 'default',
    system_fingerprint: 'fp_de604bd877',
  };
  const chunk = (delta: object, finish: string | null = null) =>
    frame({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      usage: null,
      obfuscation: 'Qup1BsQ3',
    });
  const frames: Buffer[] = [];
  let expected: Expected;
  if (scenario === 'text') {
    const tokens = textTokens(units);
    frames.push(chunk({ role: 'assistant', content: '', refusal: null }));
    for (const content of tokens) frames.push(chunk({ content }));
    frames.push(chunk({}, 'stop'));
    expected = { text: tokens.join(''), toolInput: undefined };
  } else {
    const input = { rows: rowsForFragments(units) };
    const call = {
      index: 0,
      id: 'call_BenchBenchBenchBench01',
      type: 'function',
      function: { name: benchTool.name, arguments: '' },
    };
    frames.push(chunk({ role: 'assistant', content: null, tool_calls: [call], refusal: null }));
    for (const fragment of splitFragments(JSON.stringify(input), units))
      frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: fragment } }] }));
    frames.push(chunk({}, 'tool_calls'));
    expected = { text: '', toolInput: input };
  }
  const usage = {
    prompt_tokens: 16,
    completion_tokens: units,
    total_tokens: 16 + units,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  };
  frames.push(frame({ ...base, choices: [], usage, obfuscation: 'h9RiQLL' }));
  frames.push(frame('[DONE]'));
  return { frames, expected };
}

function geminiChunk(parts: object[], outputTokens: number, finish?: string): Buffer {
  const candidate: Record<string, unknown> = { content: { parts, role: 'model' }, index: 0 };
  if (finish !== undefined) candidate.finishReason = finish;
  return frame({
    candidates: [candidate],
    usageMetadata: {
      promptTokenCount: 9,
      candidatesTokenCount: outputTokens,
      totalTokenCount: 9 + outputTokens,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 9 }],
    },
    modelVersion: models.gemini,
    responseId: 'bH6LaZW8Fp_3nsEPqtaSwQ4',
  });
}

const signature = 'CiMBjz1rX25KieIB4d4AwFn8/WbsHTRNHBXso88PtemwfsSfRAp6AY89a1/e2FrmrE2HtlOxvV7vy8Kn5Og9n6Cep';

function geminiToolFrames(
  units: number,
  format: GeminiToolFormat,
): { frames: Buffer[]; input: { rows: Row[] } } {
  if (format === 'whole-call') {
    const input = { rows: toolRows(units) };
    const part = { functionCall: { name: benchTool.name, args: input }, thoughtSignature: signature };
    return { frames: [geminiChunk([part], units, 'STOP')], input };
  }
  // Four partialArgs events per row: the id, the name in two pieces, the name's closing empty piece.
  const rows = toolRows(Math.max(1, Math.floor(units / 4)));
  const start = { functionCall: { name: benchTool.name, willContinue: true }, thoughtSignature: signature };
  const frames = [geminiChunk([start], 1)];
  const partial = (arg: object) =>
    geminiChunk([{ functionCall: { partialArgs: [arg], willContinue: true } }], 1);
  for (const row of rows) {
    const cut = Math.ceil(row.name.length / 2);
    frames.push(partial({ jsonPath: `$.rows[${row.id}].id`, numberValue: row.id }));
    const path = `$.rows[${row.id}].name`;
    frames.push(partial({ jsonPath: path, stringValue: row.name.slice(0, cut), willContinue: true }));
    frames.push(partial({ jsonPath: path, stringValue: row.name.slice(cut), willContinue: true }));
    frames.push(partial({ jsonPath: path, stringValue: '' }));
  }
  frames.push(geminiChunk([{ functionCall: {} }], units, 'STOP'));
  return { frames, input: { rows } };
}

function geminiFrames(
  scenario: Scenario,
  units: number,
  format: GeminiToolFormat,
): { frames: Buffer[]; expected: Expected } {
  if (scenario === 'tool') {
    const { frames, input } = geminiToolFrames(units, format);
    return { frames, expected: { text: '', toolInput: input } };
  }
  const tokens = textTokens(units);
  const frames = tokens.map((text, index) =>
    geminiChunk([{ text }], index + 1, index === tokens.length - 1 ? 'STOP' : undefined),
  );
  return { frames, expected: { text: tokens.join(''), toolInput: undefined } };
}

/** Builds one payload. `units` is the token (text) or fragment (tool) count. */
export function createPayload(
  protocol: Protocol,
  scenario: Scenario,
  units: number,
  geminiToolFormat: GeminiToolFormat = 'partial-args',
): Payload {
  const built =
    protocol === 'anthropic'
      ? anthropicFrames(scenario, units)
      : protocol === 'openai'
        ? openaiFrames(scenario, units)
        : protocol === 'responses'
          ? responsesFrames(scenario, units, {
              frame,
              model: models.responses,
              toolName: benchTool.name,
              textTokens,
              splitFragments,
              toolInput: (fragments) => ({ rows: rowsForFragments(fragments) }),
            })
          : geminiFrames(scenario, units, geminiToolFormat);
  const unitCount =
    protocol === 'gemini' && scenario === 'tool' && geminiToolFormat === 'partial-args'
      ? (built.expected.toolInput?.rows.length ?? 0) * 4
      : units;
  const bytes = built.frames.reduce((sum, buffer) => sum + buffer.length, 0);
  return { protocol, scenario, units: unitCount, frames: built.frames, bytes, expected: built.expected };
}

/** Groups frames into writes of 1–4 events (a fixed pseudo-random pattern) for the drip delivery. */
export function dripGroups(frames: Buffer[]): Buffer[] {
  const groups: Buffer[] = [];
  let state = 7;
  for (let index = 0; index < frames.length;) {
    state = (state * 1103515245 + 12345) >>> 0;
    const size = 1 + ((state >>> 16) % 4);
    groups.push(Buffer.concat(frames.slice(index, index + size)));
    index += size;
  }
  return groups;
}
