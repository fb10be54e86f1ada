/**
 * The hostile-server fault matrix: every row of hostile-server.faults.ts, against every adapter
 * (Anthropic, OpenAI Chat, OpenAI Responses, Gemini, the Groq preset, a host with shapeless keys;
 * the heavy rows on one adapter per wire protocol) × {stream, complete}, on a
 * raw loopback socket. The oracle for every case: the call ends within a bound; with the correct
 * answer or the row's classified error (closed enum, `retryable` as the row says); on stream() the
 * contract's event order holds and the text received before the fault is on `finish`; the API key
 * is in no error message, cause, JSON form or log line; an error's provider code is at most 100
 * characters, none a control character; no unhandled rejection or uncaught exception.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/core/adapter.ts';
import { errorClasses } from '../../src/core/errors/error-class.ts';
import { isAdapterError } from '../../src/core/errors/guards.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';
import type { CanonicalRequest, CanonicalResponse } from '../../src/core/request.ts';
import { userText } from '../../src/core/transcript.ts';
import type { AdapterOptions } from '../../src/providers/common/options.ts';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import { createOpenAI } from '../../src/providers/openai-chat/index.ts';
import { createOpenAICompatible, presets } from '../../src/providers/openai-compatible/index.ts';
import { createOpenAIResponses } from '../../src/providers/openai-responses/index.ts';
import { createGemini } from '../../src/providers/gemini/index.ts';
import { collectStream } from '../../src/testing/collect.ts';
import { type Emulator, type EmulatorProtocolId, startEmulator } from '../../src/testing/emulator/index.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';
import { type HostileServer, startHostileServer } from '../support/hostile-server.ts';
import {
  type Expected,
  type ExpectedError,
  type Fault,
  type FaultContext,
  faults as faultRows,
  type Mode,
} from './hostile-server.faults.ts';
import { endings } from './hostile-server.endings.ts';
import { errorRows } from './hostile-server.errors.ts';

const faults: readonly Fault[] = [...faultRows, ...errorRows, ...endings];

/** One adapter under test. Keys are built from pieces: the source holds nothing shaped like a key. */
interface Target {
  name: string;
  protocol: EmulatorProtocolId;
  basePath: string;
  model: string;
  key: string;
  create(options: AdapterOptions): Adapter;
}

const targets: Target[] = [
  {
    name: 'anthropic',
    protocol: 'anthropic-messages',
    basePath: '/v1',
    model: 'claude-sonnet-4-5',
    key: ['sk', 'ant', 'api03', 'HostileKey0123456789abcdef'].join('-'),
    create: (options) => createAnthropic(options),
  },
  {
    name: 'openai-chat',
    protocol: 'openai-chat',
    basePath: '/v1',
    model: 'gpt-4.1-mini',
    key: ['sk', 'proj', 'HostileKey0123456789abcdef'].join('-'),
    create: (options) => createOpenAI(options),
  },
  {
    name: 'openai-responses',
    protocol: 'openai-responses',
    basePath: '/v1',
    model: 'gpt-5-mini',
    key: ['sk', 'proj', 'HostileKeyResponses0123456789'].join('-'),
    create: (options) => createOpenAIResponses(options),
  },
  {
    name: 'gemini',
    protocol: 'gemini',
    basePath: '/v1beta',
    model: 'gemini-2.5-flash',
    key: ['AIza', 'SyHostileKey0123456789abcdefghij'].join(''),
    create: (options) => createGemini(options),
  },
  {
    name: 'groq',
    protocol: 'openai-chat',
    basePath: '/v1',
    model: 'llama-3.3-70b-versatile',
    key: ['gsk', 'HostileKey0123456789abcdefghij'].join('_'),
    create: (options) => createOpenAICompatible(presets.groq, options),
  },
  {
    // A host whose keys have no known shape: only the literal value can be redacted.
    name: 'custom-host',
    protocol: 'openai-chat',
    basePath: '/v1',
    model: 'house-model',
    key: ['house', 'secret', 'ShapelessKey0123456789'].join('.'),
    create: (options) =>
      createOpenAICompatible({ name: 'house', baseURL: 'http://unused.invalid/v1' }, options),
  },
];

/**
 * The targets of the heavy rows (`Fault.oneAtATime`: 20 MB bodies, 100k levels, thousands of
 * writes): one per wire protocol. The compatible hosts parse with OpenAI Chat's code, and how their
 * keys are kept out of errors is proven by every other row.
 */
const onePerProtocol = targets.filter(
  (target, index) => targets.findIndex((other) => other.protocol === target.protocol) === index,
);

const modes: Mode[] = ['stream', 'complete'];
const scriptedText = 'Hello world from a fault matrix.';

/** Transport limits of every case: short, so that timeout rows end fast. */
const limits = { timeout: 4000, firstByteTimeout: 1000, idleTimeout: 1000, maxRetries: 1, retryBaseDelay: 1 };
/** No case may take longer than this (the hang detector). */
const caseBoundMs = 8000;

/** Correct answers per protocol, recorded from the emulator through a tee fetch. */
const recorded = new Map<EmulatorProtocolId, Record<Mode, { contentType: string; body: Buffer }>>();

let server: HostileServer;
let emulator: Emulator;
const unhandled: unknown[] = [];
const onUnhandled = (error: unknown) => unhandled.push(error);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);
  server = await startHostileServer();
  emulator = await startEmulator();
  for (const target of targets) {
    if (recorded.has(target.protocol)) continue;
    const answers = {} as Record<Mode, { contentType: string; body: Buffer }>;
    for (const mode of modes) answers[mode] = await record(target, mode);
    recorded.set(target.protocol, answers);
  }
  await emulator.close();
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  process.off('uncaughtException', onUnhandled);
  await server.close();
});

function request(target: Target): CanonicalRequest {
  return { model: target.model, transcript: [userText('hi')], maxOutputTokens: 64 };
}

async function record(target: Target, mode: Mode): Promise<{ contentType: string; body: Buffer }> {
  emulator.enqueue({
    type: 'scripted',
    protocol: target.protocol,
    content: [{ type: 'text', text: scriptedText }],
    usage: { input: 5, output: 2, cacheRead: 3, reasoning: 1 },
    chunkSize: 6,
    enforce: false,
    allowNoAuth: true,
  });
  let captured: { contentType: string; body: Buffer } | undefined;
  const tee: typeof fetch = async (url, init) => {
    const response = await fetch(url, init);
    captured = {
      contentType: response.headers.get('content-type') ?? '',
      body: Buffer.from(await response.clone().arrayBuffer()),
    };
    return response;
  };
  const adapter = target.create({ baseURL: emulator.url + target.basePath, apiKey: target.key, fetch: tee });
  if (mode === 'stream') await collectStream(adapter.stream(request(target)));
  else await adapter.complete(request(target));
  await adapter.close();
  if (captured === undefined) throw new Error(`nothing recorded for ${target.name} ${mode}`);
  return captured;
}

/** The recorded answer cut after its first text delta (stream) or in the middle (complete). */
function prefixOf(mode: Mode, body: Buffer): Buffer {
  if (mode === 'complete') return body.subarray(0, body.length >> 1);
  const at = body.indexOf('Hello');
  const end = body.indexOf('\n\n', at);
  if (at < 0 || end < 0) throw new Error('the recorded stream has no "Hello" event');
  return body.subarray(0, end + 2);
}

/** Whatever the server said, every usage bucket is a non-negative integer. */
function usageProblems(response: CanonicalResponse | undefined): string[] {
  if (response === undefined) return [];
  const { input, cacheRead, cacheWrite, output, reasoning } = response.usage;
  const counts = { input, cacheRead, cacheWrite, output, reasoning };
  return Object.entries(counts)
    .filter(([, value]) => !Number.isSafeInteger(value) || value < 0)
    .map(([name, value]) => `usage.${name} is ${String(value)}`);
}

/** The text parts of a response, joined. */
function textOf(response: CanonicalResponse | undefined): string {
  return (response?.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function expectedFor(fault: Fault, mode: Mode): Expected {
  return typeof fault.expect === 'function' ? fault.expect(mode) : fault.expect;
}

/** What one call ended with. */
interface Ending {
  error?: unknown;
  response?: CanonicalResponse;
  problems: string[];
}

async function call(adapter: Adapter, target: Target, mode: Mode): Promise<Ending> {
  if (mode === 'complete') {
    try {
      return { response: await adapter.complete(request(target)), problems: [] };
    } catch (error) {
      return { error, problems: [] };
    }
  }
  const { events, error, response } = await collectStream(adapter.stream(request(target)));
  const problems: string[] = [];
  try {
    assertStreamInvariants(events);
  } catch (violation) {
    problems.push(`stream invariants: ${String(violation)}`);
  }
  if (response === undefined) problems.push('the stream did not end with finish');
  else if (error !== undefined && response.finishReason !== 'error' && response.finishReason !== 'cancelled')
    problems.push(`an error with finish reason ${response.finishReason}`);
  return { error, response, problems };
}

function matches(error: unknown, expected: ExpectedError): boolean {
  if (!isAdapterError(error)) return false;
  if (error.errorClass !== expected.errorClass || error.retryable !== expected.retryable) return false;
  return expected.providerCode === undefined || error.providerCode === expected.providerCode;
}

function describeError(error: unknown): string {
  if (!isAdapterError(error))
    return `a non-Switchyard ${(error as Error)?.name ?? typeof error}: ${String(error)}`;
  return `${error.errorClass} retryable=${error.retryable} code=${error.providerCode ?? '-'}: ${error.message.slice(0, 200)}`;
}

type MemoryLogger = ReturnType<typeof createMemoryLogger>;

/** Every place a key could leak from an ending: message, causes, JSON form, log entries. */
function exposedText(ending: Ending, logger: MemoryLogger): string {
  const pieces: string[] = [JSON.stringify(logger.entries)];
  let current: unknown = ending.error;
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth++) {
    pieces.push(String(current), String((current as Error).message), safeJson(current));
    current = (current as { cause?: unknown }).cause;
  }
  return pieces.join('\n');
}

/** Whether `text` holds the key or any 12 consecutive characters of it. */
function leaksPartOf(text: string, key: string): boolean {
  for (let start = 0; start + 12 <= key.length; start++)
    if (text.includes(key.slice(start, start + 12))) return true;
  return false;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** A provider code an error may carry: at most 100 characters, none of them a control character. */
function codeProblems(error: { providerCode?: string; upstreamCode?: string }): string[] {
  return [error.providerCode, error.upstreamCode].flatMap((code) =>
    code !== undefined && (code.length > 100 || /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(code))
      ? [`a code of ${code.length} characters: ${JSON.stringify(code.slice(0, 60))}`]
      : [],
  );
}

/** Runs one case; returns what is wrong with it (empty when the oracle holds). */
async function runCase(fault: Fault, target: Target, mode: Mode, caseId: string): Promise<string[]> {
  const answers = recorded.get(target.protocol)!;
  const logger = createMemoryLogger();
  const adapter = target.create({
    ...limits,
    ...fault.options,
    baseURL: server.url + target.basePath,
    apiKey: target.key,
    logger,
    headers: { 'x-fault-case': caseId },
  });
  contexts.set(caseId, {
    mode,
    head: '',
    ok: answers[mode],
    prefix: prefixOf(mode, answers[mode].body),
    recorded: { json: answers.complete.body, sse: answers.stream.body },
  });
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<Ending>((resolve) => {
    const bound = caseBoundMs + (fault.options?.timeout ?? 0);
    timer = setTimeout(() => resolve({ problems: [`no ending within ${bound} ms`] }), bound);
  });
  const ending = await Promise.race([call(adapter, target, mode), hang]);
  clearTimeout(timer);
  await adapter.close();
  const problems = [...ending.problems];
  const expected = expectedFor(fault, mode);
  problems.push(...usageProblems(ending.response));
  const seen = attempts.get(caseId) ?? 0;
  if (fault.attempts !== undefined && seen !== fault.attempts)
    problems.push(`expected ${fault.attempts} requests, the server saw ${seen}`);
  if (expected === 'ok' && fault.text !== undefined && !textOf(ending.response).includes(fault.text))
    problems.push(`the text lacks "${fault.text}": "${textOf(ending.response)}"`);
  if (expected === 'ok') {
    if (ending.error !== undefined) problems.push(`expected the answer, got ${describeError(ending.error)}`);
    else if (!textOf(ending.response).startsWith('Hel'))
      problems.push(`wrong text "${textOf(ending.response)}"`);
  } else if (expected === 'any') {
    if (ending.error !== undefined && !isAdapterError(ending.error))
      problems.push(`expected a classified ending, got ${describeError(ending.error)}`);
  } else {
    const accepted = Array.isArray(expected) ? expected : [expected as ExpectedError];
    if (ending.error === undefined && ending.problems.length === 0)
      problems.push('expected an error, got an answer');
    else if (ending.error !== undefined && !accepted.some((one) => matches(ending.error, one)))
      problems.push(`expected ${JSON.stringify(accepted)}, got ${describeError(ending.error)}`);
    if (isAdapterError(ending.error) && !errorClasses.includes(ending.error.errorClass))
      problems.push(`error class ${ending.error.errorClass} is outside the enum`);
  }
  if (mode === 'stream' && fault.keepsPrefix === true && !textOf(ending.response).startsWith('Hello'))
    problems.push(`the text before the fault was lost: "${textOf(ending.response)}"`);
  if (isAdapterError(ending.error)) problems.push(...codeProblems(ending.error));
  const exposed = exposedText(ending, logger);
  if (leaksPartOf(exposed, target.key)) problems.push('the API key (or 12 characters of it) leaked');
  return problems.map((problem) => `${target.name}/${mode}: ${problem}`);
}

/** The context of each case, looked up by the `x-fault-case` header the case's adapter sends. */
const contexts = new Map<string, FaultContext>();
const rowOf = new Map<string, Fault>();
/** Requests the server saw per case (retries included). */
const attempts = new Map<string, number>();

function dispatchFault(): void {
  server.use((socket, head) => {
    const caseId = /\r\nx-fault-case:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? '';
    const context = contexts.get(caseId);
    const fault = rowOf.get(caseId);
    attempts.set(caseId, (attempts.get(caseId) ?? 0) + 1);
    if (context === undefined || fault === undefined) return socket.destroy();
    fault.serve(socket, { ...context, head });
  });
}

describe('a hostile server: every adapter × {stream, complete} ends classified, bounded, without leaks', () => {
  it.each(faults.map((fault) => [fault.name, fault] as const))(
    '%s',
    // The harness's own limit, above every case's bound (each case asserts its own ending in time).
    { timeout: 120_000 },
    async (_name, fault) => {
      dispatchFault();
      const rowTargets = fault.oneAtATime === true ? onePerProtocol : targets;
      const pairs = rowTargets.flatMap((target) => modes.map((mode) => [target, mode] as const));
      const start = ([target, mode]: (typeof pairs)[number]) => {
        const caseId = `${faults.indexOf(fault)}.${target.name}.${mode}`;
        rowOf.set(caseId, fault);
        return runCase(fault, target, mode, caseId);
      };
      const problems: string[] = [];
      if (fault.oneAtATime === true) for (const pair of pairs) problems.push(...(await start(pair)));
      else problems.push(...(await Promise.all(pairs.map(start))).flat());
      server.dropConnections();
      expect(problems).toEqual([]);
      expect(unhandled).toEqual([]);
    },
  );
});
