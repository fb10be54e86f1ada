/** The loopback HTTP server that records requests and answers them from a queue of scripts. */
// node:http rather than a framework: byte-level faults need the raw socket (split writes, destroy, stall).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { answerBuiltin, type CachedContentStore, checkCachedContentUse } from './builtin.ts';
import { emulatorError } from './errors.ts';
import { createJsonPlan, createStreamPlan, type ResponsePlan, type WireFrame } from './frames.ts';
import { createReplayPlan } from './replay.ts';
import { inferProtocol, matchBuiltin } from './routing.ts';
import { checkRules } from './rules/index.ts';
import { emulatorProtocols } from './protocols.ts';
import { createResponsesStore, type ResponsesStore } from './rules/openai-responses.ts';
import { createScriptedPlan } from './scripted/index.ts';
import type {
  Emulator,
  EmulatorProtocolId,
  EmulatorFault,
  EmulatorOptions,
  EmulatorScript,
  JsonScript,
  RecordedRequest,
} from './types.ts';
import { writeResponse } from './writer.ts';
import { parseJson } from '../../core/json-text.ts';

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}

function recordRequest(request: IncomingMessage, bodyText: string): RecordedRequest {
  const url = new URL(request.url ?? '/', 'http://emulator.invalid');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  const recorded = {
    method: request.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers,
    body: parseBody(bodyText),
  };
  return { ...recorded, protocol: inferProtocol(recorded) };
}

function jsonScriptPlan(script: JsonScript): ResponsePlan {
  return createJsonPlan(script.status ?? 200, script.body, script.headers);
}

async function createPlan(
  script: EmulatorScript,
  request: RecordedRequest,
  options: EmulatorOptions,
): Promise<ResponsePlan> {
  switch (script.type) {
    case 'json':
      return jsonScriptPlan(script);
    case 'sse': {
      const frames: WireFrame[] = script.events.map(({ event, data }) => {
        const text = typeof data === 'string' ? data : JSON.stringify(data);
        return event === undefined ? { data: text } : { event, data: text };
      });
      return createStreamPlan(frames, script.status ?? 200, script.headers);
    }
    case 'replay':
      return createReplayPlan(script, request.protocol);
    case 'scripted': {
      const protocol: EmulatorProtocolId | undefined = script.protocol ?? request.protocol;
      if (protocol === undefined)
        return jsonScriptPlan(emulatorError(`cannot infer the protocol of ${request.path}`));
      return createScriptedPlan(script, protocol, request, options.chatReasoningField);
    }
  }
}

interface EmulatorState {
  queue: EmulatorScript[];
  fallback: EmulatorScript | undefined;
  requests: RecordedRequest[];
  cache: CachedContentStore;
  /** Stored Responses and conversations (`previous_response_id`, `conversation`). */
  responses: ResponsesStore;
  /** The answer of every token-count request instead of its count (`setCountScript`). */
  countScript: JsonScript | undefined;
  options: EmulatorOptions;
}

async function answer(
  state: EmulatorState,
  request: RecordedRequest,
): Promise<[ResponsePlan, EmulatorFault?]> {
  const builtin = matchBuiltin(request.method, request.path);
  if (builtin !== undefined)
    return [
      answerBuiltin(builtin, request, state.cache, state.countScript),
      builtin === 'count-tokens' ? state.countScript?.fault : undefined,
    ];
  if (request.method === 'GET') return [jsonScriptPlan(emulatorError(`no route for GET ${request.path}`))];
  const script = state.queue.shift() ?? state.fallback;
  if (script === undefined) return [jsonScriptPlan(emulatorError('no script queued'))];
  const violation =
    (script.enforce === false ? undefined : checkCachedContentUse(state.cache, request)) ??
    checkRules(request.protocol, request, script, state.responses);
  if (violation !== undefined) return [jsonScriptPlan(violation)];
  const plan = await createPlan(script, request, state.options);
  if (request.protocol !== undefined)
    emulatorProtocols[request.protocol].remember?.(state.responses, request, plan);
  return [plan, script.fault];
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/** Starts an emulator on 127.0.0.1 (port 0 picks a free one by default). */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const state: EmulatorState = {
    queue: [],
    fallback: undefined,
    requests: [],
    cache: { entries: new Map(), owners: new Map() },
    responses: createResponsesStore(),
    countScript: undefined,
    options,
  };
  const sockets = new Set<Socket>();
  const shutdown = new AbortController();

  async function handle(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const request = recordRequest(incoming, await readBody(incoming));
    state.requests.push(request);
    const finished = new AbortController();
    response.on('close', () => {
      finished.abort();
      options.onResponse?.({
        method: request.method,
        path: request.path,
        status: response.headersSent ? response.statusCode : undefined,
        complete: response.writableFinished,
        durationMs: performance.now() - started,
      });
    });
    const signal = AbortSignal.any([shutdown.signal, finished.signal]);
    let plan: ResponsePlan;
    let fault: EmulatorFault | undefined;
    try {
      [plan, fault] = await answer(state, request);
    } catch (error) {
      plan = jsonScriptPlan(emulatorError(error instanceof Error ? error.message : String(error)));
    }
    await writeResponse(response, plan, fault, signal);
  }

  const server = createServer({ noDelay: true }, (incoming, response) => {
    handle(incoming, response).catch((error: unknown) => {
      if (!isAbort(error)) response.socket?.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  return {
    url: `http://127.0.0.1:${address.port}`,
    requests: state.requests,
    clear() {
      state.queue.length = 0;
    },
    enqueue(script) {
      state.queue.push(script);
    },
    setDefault(script) {
      state.fallback = script;
    },
    setCountScript(script) {
      state.countScript = script;
    },
    close() {
      if (closing === undefined) {
        shutdown.abort();
        closing = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      }
      return closing;
    },
  };
}
