/** The gateway's HTTP routes (Hono): every protocol at its standard path, health, readiness and metrics. */
import { estimateUpperBound } from '../providers/common/token-estimate.ts';
import { isAdapterError } from '../core/errors/guards.ts';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Hono, type Context } from 'hono';
import { codecs } from '../codecs/index.ts';
import { decodeCountTokens } from '../codecs/gemini/count-tokens.ts';
import type { InboundProtocol, ProtocolName } from '../codecs/types.ts';
import { shutDown, toWireError } from './errors.ts';
import { type Caller, keyRefusalOf, localRefusal, refusalOf, requestIdFrom } from './caller.ts';
import { type GenerationCall, watchClient } from './generation-call.ts';
import { modelLabel, permittedModel } from './generate-request.ts';
import { serveGeneration } from './generate.ts';
import {
  finishLog,
  type LoggedRequest,
  logRefusal,
  logWhenDelivered,
  type RouteLabel,
} from './access-log.ts';
import { isNativeRoute, leaveOutProviderTools, warnLeftOut } from './left-out.ts';
import { countBuiltinTools } from './builtin-tools.ts';
import { HeldBody, holderOf, readHeldJson } from './body-hold.ts';
import { headerOf } from './inbound.ts';
import { applyClientBetas } from './betas.ts';
import { ambiguousPathError, isAmbiguousPath, pathOfTarget, protocolOfPath } from './paths.ts';
import { anthropicModels, geminiModels, listedModel, openaiModels } from './models.ts';
import { withStoredResponses } from './stored-responses.ts';
import { deleteResponse, listResponseInputItems, retrieveResponse } from './response-routes.ts';
import { scopeOf } from './artifacts.ts';
import { shown } from '../codecs/fields.ts';
import { keyUsage } from './quota.ts';
import { withKeyLimits } from './key-limits.ts';
import { errorResponse, requestIdHeaders, toResponse, wireOf } from './reply.ts';
import { deliverAfterEnd } from './delivery.ts';
import type { GatewayState } from './state.ts';

type Env = { Variables: { requestId: string } };
type Handler = (c: Context<Env>, caller: Caller) => Response | Promise<Response>;
type Route = (c: Context<Env>) => Response | Promise<Response>;
/** A route that generates nothing: `line` is its access log line, filled in as it learns the model. */
type LoggedHandler = (c: Context<Env>, caller: Caller, line: LoggedRequest) => Response | Promise<Response>;
/** A {@link LoggedHandler} under its key's limits: `admit` takes one of the key's requests of the minute. */
type LimitedHandler = (
  c: Context<Env>,
  caller: Caller,
  line: LoggedRequest,
  admit: () => Promise<void>,
) => Promise<Response>;

/** A JSON reply carrying the request's id as `protocol`'s clients read it (`request-id` too for Anthropic's). */
const json = (
  c: Context<Env>,
  caller: Caller,
  body: unknown,
  protocol: InboundProtocol = 'openai-chat',
  status: 200 | 503 = 200,
) => c.json(body, status, requestIdHeaders(protocol, caller.requestId));

/**
 * `response` with the gateway's own time for it (`x-switchyard-overhead-ms`), as a generation's
 * whole reply has it; a reply already written to Node's response is left as it is.
 */
function withOverhead(response: Response, ownMs: number): Response {
  if (!response.headers.has('x-hono-already-sent') && !response.headers.has('x-switchyard-overhead-ms'))
    response.headers.set('x-switchyard-overhead-ms', ownMs.toFixed(3));
  return response;
}

/**
 * The path of a request URL as the client sent it, percent-escapes kept (the access log's `path`,
 * as the gateway's own server logs it: Hono's `c.req.path` is decoded).
 */
function rawPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start === -1) return '/';
  const query = url.indexOf('?', start);
  return url.slice(start, query === -1 ? undefined : query);
}

/** The protocol a request's path speaks, for error shapes before a handler runs. */
const protocolOf = (c: Context<Env>): ProtocolName =>
  protocolOfPath(c.req.path, c.req.raw.headers.has('anthropic-version'));

/**
 * A request whose path as sent (Node's `url`, when @hono/node-server serves the app: the web
 * `Request`'s URL has its dot-segments already resolved) is refused rather than routed
 * (`paths.ts`): its 404, else undefined. Another host's `Request` shows only the resolved path.
 */
function refusedPath(c: Context<Env>, requestId: string): Response | undefined {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  if (!(incoming instanceof IncomingMessage)) return undefined;
  const path = pathOfTarget(incoming.url ?? '/');
  if (!isAmbiguousPath(path)) return undefined;
  const protocol = protocolOfPath(path, c.req.raw.headers.has('anthropic-version'));
  return errorResponse(protocol, ambiguousPathError(c.req.method, path), requestId);
}

// `s`: a model name holding a line break is still a Gemini action (refused as a model name, a 400).
const geminiPath = /^(.+):(generateContent|streamGenerateContent|countTokens)$/s;
/** `/v1/models/{x}` and `/v1beta/models/{x}`: one model (GET), or a Gemini method on one (POST). */
const modelPath = /^\/(?:v1beta|v1)\/models\/([^/]+)$/;

/**
 * Whether `method` is served at `path` beyond its route matching: on a model path, GET only for a
 * model (`{model}:generateContent` asked with GET is a 405 naming POST) and POST only for a Gemini
 * method (any other name is an unknown method): a 405's `allow` names only what would be served.
 */
function modelPathTakes(path: string, method: string): boolean {
  const name = modelPath.exec(path)?.[1];
  if (name === undefined) return true;
  let decoded: string;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    decoded = name;
  }
  return (method === 'POST') === geminiPath.test(decoded);
}

const guardedPrefix = /^\/(v1|v1beta|switchyard)(\/|$)/;

/** The client's `x-request-id` when it is a plain token of at most 128 characters, else a new id. */
function requestIdOf(c: Context<Env>): string {
  return requestIdFrom(headerOf(c.req.raw, incomingOf(c.env), 'x-request-id'));
}

/**
 * Set in the env by the gateway's own `listen()`: the app is the server's whole app, so the web
 * request is the untouched wrapper of Node's (headers and body may be read from Node's request,
 * from the first tick) and a streamed reply may be written to Node's response directly. Mounted in
 * another app, a middleware may have replaced the request or await before the handler runs, and
 * may copy or change the reply: the web request is read, the stream goes back as a web stream.
 */
export const directWrites = Symbol('switchyard.gateway.directWrites');

/** Node's request when the gateway's own server serves the app (see {@link directWrites}). */
function incomingOf(env: unknown): IncomingMessage | undefined {
  const given = env as ({ incoming?: unknown } & Record<symbol, unknown>) | undefined;
  if (given?.[directWrites] !== true) return undefined;
  return given.incoming instanceof IncomingMessage ? given.incoming : undefined;
}

/**
 * Node's response when @hono/node-server serves the app (the client-gone watch is on it) and, when
 * the gateway's own server serves the request, Node's request (headers and body read from it) and
 * whether streams may be written to the response directly.
 */
function nodeOf(env: unknown): Pick<GenerationCall, 'incoming' | 'outgoing' | 'directWrites'> {
  const outgoing = (env as { outgoing?: unknown } | undefined)?.outgoing;
  if (!(outgoing instanceof ServerResponse)) return {};
  const direct = (env as Record<symbol, unknown>)[directWrites] === true;
  return { incoming: incomingOf(env), outgoing, directWrites: direct };
}

/**
 * Builds the Hono app over shared gateway state. Every route has one handler that sets the request
 * id and, under `/v1`, `/v1beta` and `/switchyard`, checks the gateway key first — no middleware
 * chain, so Hono calls the handler directly.
 */
export function createApp(state: GatewayState): Hono<Env> {
  const app = new Hono<Env>();

  /**
   * The request's id, kept for `onError` (every reply sets its `x-request-id` itself). Mounted on
   * @hono/node-server (Node's response known, not the gateway's own server, which watches its
   * replies itself: `cutIfUnread` in `node-listener.ts`), the reply is under the send timeout once
   * the host has written it ({@link deliverAfterEnd}).
   */
  const identify = (c: Context<Env>): string => {
    const requestId = requestIdOf(c);
    c.set('requestId', requestId);
    const { outgoing, directWrites: direct } = nodeOf(c.env);
    if (outgoing !== undefined && !direct) deliverAfterEnd(outgoing, state.sendTimeoutMs);
    return requestId;
  };
  /** A route open to anyone (without keys, to this machine's clients only: `localRefusal`). */
  const open =
    (handler: Handler): Route =>
    async (c) => {
      const caller: Caller = { requestId: identify(c), key: undefined };
      const unroutable = refusedPath(c, caller.requestId);
      if (unroutable !== undefined) return unroutable;
      const started = performance.now();
      const refusal = localRefusal(state, (name) => headerOf(c.req.raw, incomingOf(c.env), name));
      if (refusal !== undefined) return errorResponse('openai-chat', refusal, caller.requestId);
      return withOverhead(await handler(c, caller), performance.now() - started);
    };
  /**
   * A route behind the gateway keys; `protocol` (default: the path's) shapes its refusals, logged
   * and counted under `route`.
   */
  const guarded =
    (
      handler: Handler,
      protocol?: ProtocolName,
      route?: RouteLabel | ((c: Context<Env>) => RouteLabel),
    ): Route =>
    (c) => {
      const caller: Caller = { requestId: identify(c), key: undefined };
      const unroutable = refusedPath(c, caller.requestId);
      if (unroutable !== undefined) return unroutable;
      const incoming = incomingOf(c.env);
      const header = (name: string) => headerOf(c.req.raw, incoming, name);
      const refusal = refusalOf(state, caller, header, () => c.req.query('key'));
      if (refusal === undefined) return handler(c, caller);
      const refusedAs = protocol ?? protocolOf(c);
      logRefusal(
        state,
        {
          protocol: refusedAs,
          path: rawPath(c.req.url),
          requestId: caller.requestId,
          route: typeof route === 'function' ? route(c) : route,
        },
        refusal,
      );
      return errorResponse(refusedAs, refusal, caller.requestId);
    };

  const generate = (
    c: Context<Env>,
    caller: Caller,
    protocol: InboundProtocol,
    extra: Partial<GenerationCall> = {},
  ) =>
    new Promise<Response>((resolve, reject) => {
      const call: GenerationCall = {
        protocol,
        request: c.req.raw,
        path: rawPath(c.req.url),
        requestId: caller.requestId,
        key: caller.key,
        ...nodeOf(c.env),
        ...extra,
      };
      // A failure to answer at all (never expected) goes to `onError`.
      serveGeneration(state, call, (reply) => resolve(toResponse(reply))).catch(reject);
    });

  app.post(
    '/v1/chat/completions',
    guarded((c, caller) => generate(c, caller, 'openai-chat'), 'openai-chat'),
  );
  app.post(
    '/v1/responses',
    guarded((c, caller) => generate(c, caller, 'openai-responses'), 'openai-responses'),
  );
  app.post(
    '/v1/messages',
    guarded((c, caller) => generate(c, caller, 'anthropic-messages'), 'anthropic-messages'),
  );
  /**
   * A request that generates nothing (a count, a stored reply's read, a listing), logged and counted
   * under `route` once its reply is out, as a generation logs itself (`generate.ts`).
   */
  const logged =
    (route: RouteLabel, protocol: InboundProtocol, handler: LoggedHandler): Handler =>
    async (c, caller) => {
      const line: LoggedRequest = {
        call: { protocol, path: rawPath(c.req.url), requestId: caller.requestId, key: caller.key },
        route,
        startedAt: performance.now(),
        ownMs: 0,
        model: 'unknown',
        stream: false,
        status: 500,
        errorClass: 'server_error',
      };
      // A handler that throws (never expected: `onError` answers it) is logged as its 500.
      let response: Response | undefined;
      try {
        response = await handler(c, caller, line);
      } finally {
        line.ownMs += performance.now() - line.startedAt;
        if (response === undefined) finishLog(state, line);
      }
      line.status = response.status;
      line.errorClass = wireOf(response)?.errorClass;
      withOverhead(response, line.ownMs);
      logWhenDelivered(state, line, nodeOf(c.env).outgoing);
      return response;
    };
  // A request that generates nothing under its key's limits: `requests_per_minute` (taken when the
  // handler calls `admit`) and `max_in_flight` (key-limits.ts); refused in the route's protocol.
  const limited = (route: RouteLabel, protocol: ProtocolName, handler: LimitedHandler): Handler =>
    logged(route, protocol, async (c, caller, line) => {
      try {
        return await withKeyLimits(
          state,
          caller.key,
          (admit) => handler(c, caller, line, admit),
          nodeOf(c.env).outgoing,
        );
      } catch (error) {
        return errorResponse(protocol, toWireError(error), caller.requestId);
      }
    });
  /** A token count's route: its protocol shapes its replies and refusals. */
  const countRoute = (protocol: ProtocolName, model?: string) =>
    limited('count_tokens', protocol, (c, caller, line, admit) =>
      countRequestTokens(c, caller, state, { protocol, model, line, admit }),
    );
  app.post(
    '/v1/responses/input_tokens',
    guarded(countRoute('openai-responses'), 'openai-responses', 'count_tokens'),
  );
  // A stored reply read back, listed or deleted: the caller's own, in its key's scope.
  const storedRoute = (serve: typeof retrieveResponse) =>
    guarded(
      limited('stored_response', 'openai-responses', async (c, caller, _, admit) => {
        await admit();
        return serve(state, {
          id: c.req.param('id') ?? '',
          scope: scopeOf(caller.key?.name),
          requestId: caller.requestId,
          query: (name) => c.req.query(name),
        });
      }),
      'openai-responses',
      'stored_response',
    );
  app.get('/v1/responses/:id', storedRoute(retrieveResponse));
  app.delete('/v1/responses/:id', storedRoute(deleteResponse));
  app.get('/v1/responses/:id/input_items', storedRoute(listResponseInputItems));
  app.post(
    '/v1/messages/count_tokens',
    guarded(countRoute('anthropic-messages'), 'anthropic-messages', 'count_tokens'),
  );
  /** The listing protocol a `/v1/models` request asks for, by the headers its SDK sends. */
  const listingProtocol = (c: Context<Env>): 'openai-chat' | 'anthropic-messages' | 'gemini' => {
    if (c.req.header('anthropic-version') !== undefined) return 'anthropic-messages';
    if (c.req.header('x-goog-api-key') !== undefined || c.req.query('key') !== undefined) return 'gemini';
    return 'openai-chat';
  };
  /** A model listing's route, logged in the protocol it answers. */
  const modelsRoute =
    (fixed: 'gemini' | undefined, handler: LoggedHandler): Route =>
    (c) =>
      guarded(logged('models', fixed ?? listingProtocol(c), handler), fixed, 'models')(c);
  const listings = {
    'openai-chat': openaiModels,
    'anthropic-messages': anthropicModels,
    gemini: geminiModels,
  };
  /** A model listing's page in `protocol`'s shape, or the protocol's 400 for a page parameter it cannot take. */
  const listing = (c: Context<Env>, caller: Caller, protocol: keyof typeof listings) => {
    try {
      return json(
        c,
        caller,
        listings[protocol](state, caller.key, (name) => c.req.query(name)),
        protocol,
      );
    } catch (error) {
      return errorResponse(protocol, toWireError(error), caller.requestId);
    }
  };
  app.get(
    '/v1/models',
    modelsRoute(undefined, async (c, caller) => {
      await state.adaptersLoaded;
      const protocol = listingProtocol(c);
      return listing(c, caller, protocol);
    }),
  );
  // One model (the SDKs' `models.retrieve` / `models.get`), in the shape its listing has.
  const oneModel = (
    c: Context<Env>,
    caller: Caller,
    protocol: 'openai-chat' | 'anthropic-messages' | 'gemini',
    name = '',
  ) => {
    // A Gemini method path (`{model}:generateContent`) asked with GET: the route takes POST.
    if (geminiPath.test(name)) {
      const response = errorResponse(
        'gemini',
        { status: 405, errorClass: 'invalid_request', message: `GET ${c.req.path}: use POST` },
        caller.requestId,
      );
      response.headers.set('allow', 'POST');
      return response;
    }
    const model = listedModel(state, caller.key, protocol, name);
    if (model !== undefined) return json(c, caller, model, protocol);
    return errorResponse(
      protocol,
      {
        status: 404,
        errorClass: 'invalid_request',
        ...(protocol === 'openai-chat' ? { code: 'model_not_found' } : {}),
        message: `The model '${shown(name)}' does not exist`,
      },
      caller.requestId,
    );
  };
  app.get(
    '/v1/models/:name',
    modelsRoute(undefined, async (c, caller) => {
      await state.adaptersLoaded;
      return oneModel(c, caller, listingProtocol(c), c.req.param('name'));
    }),
  );
  app.get(
    '/v1beta/models/:name',
    modelsRoute('gemini', async (c, caller) => {
      await state.adaptersLoaded;
      return oneModel(c, caller, 'gemini', c.req.param('name'));
    }),
  );
  app.get(
    '/v1beta/models',
    modelsRoute('gemini', async (c, caller) => {
      await state.adaptersLoaded;
      return listing(c, caller, 'gemini');
    }),
  );
  const gemini: Handler = (c, caller) => {
    // Hono's path parameter is already decoded (once, as the gateway's own server decodes it).
    const match = geminiPath.exec(c.req.param('action') ?? '');
    if (match === null)
      return logged('other', 'gemini', () =>
        errorResponse(
          'gemini',
          { status: 404, errorClass: 'invalid_request', message: 'unknown method' },
          caller.requestId,
        ),
      )(c, caller);
    const [, model, method] = match;
    if (method === 'countTokens') return countRoute('gemini', model)(c, caller);
    const stream = method === 'streamGenerateContent';
    return generate(c, caller, 'gemini', {
      decodeContext: { model, stream },
      jsonArray: stream && c.req.query('alt') !== 'sse',
    });
  };
  // The Gemini API version is the client's choice (`v1beta` by default, `v1` when set).
  // A refused count is counted as a count, a refused generation as a generation.
  const geminiRoute = (c: Context<Env>): RouteLabel =>
    (c.req.param('action') ?? '').endsWith(':countTokens') ? 'count_tokens' : 'generate';
  app.post('/v1beta/models/:action', guarded(gemini, 'gemini', geminiRoute));
  app.post('/v1/models/:action', guarded(gemini, 'gemini', geminiRoute));
  app.post(
    '/switchyard/v1/stream',
    guarded((c, caller) => generate(c, caller, 'switchyard'), 'openai-chat'),
  );
  app.get(
    '/switchyard/v1/keys/:name/usage',
    guarded(
      logged('key_usage', 'openai-chat', (c, caller) => serveKeyUsage(c, caller, state)),
      'openai-chat',
      'key_usage',
    ),
  );

  app.get(
    '/healthz',
    open((c, caller) => json(c, caller, { status: 'ok' })),
  );
  app.get(
    '/readyz',
    open((c, caller) =>
      !state.accepting
        ? json(c, caller, { status: 'shutting down' }, 'openai-chat', 503)
        : // `on_state_failure: closed` and Redis not reachable: every keyed request would be a 503.
          state.shared.refusing === true
          ? json(c, caller, { status: 'state unavailable' }, 'openai-chat', 503)
          : json(c, caller, { status: 'ready' }),
    ),
  );
  // With keys, what every tenant's traffic and spend look like is the operator's: an admin key.
  /** The Prometheus text, for an admin key when keys are configured. */
  const metricsFor = async (c: Context<Env>, caller: Caller) => {
    if (state.keys.length > 0 && caller.key?.admin !== true) return adminRequired(caller.requestId);
    await updateCircuits(state);
    return c.body(await state.metrics.registry.metrics(), 200, {
      'content-type': state.metrics.registry.contentType,
      'x-request-id': caller.requestId,
    });
  };
  // Scraped while shutting down too (the grace period is when an operator watches it drain).
  app.get('/metrics', async (c) => {
    const caller: Caller = { requestId: identify(c), key: undefined };
    const unroutable = refusedPath(c, caller.requestId);
    if (unroutable !== undefined) return unroutable;
    const header = (name: string) => headerOf(c.req.raw, incomingOf(c.env), name);
    const refusal = keyRefusalOf(state, caller, header, () => c.req.query('key'));
    if (refusal === undefined) return metricsFor(c, caller);
    logRefusal(
      state,
      { protocol: 'openai-chat', path: '/metrics', requestId: caller.requestId, route: 'metrics' },
      refusal,
    );
    return errorResponse('openai-chat', refusal, caller.requestId);
  });
  // A known path asked with another method: 405 with `Allow`, not a 404 (after every real route,
  // so only the other methods reach it; HEAD takes a GET route's answer).
  /** The methods the routes take at `path` other than the one asked (a 405's `allow`), in order. */
  const otherMethods = (path: string, asked: string) =>
    ['GET', 'POST', 'DELETE'].filter(
      (method) =>
        method !== asked &&
        (asked !== 'HEAD' || method !== 'GET') &&
        app.router.match(method, path)[0].length > 0 &&
        modelPathTakes(path, method),
    );
  // An unknown path is a 404; a known one asked with another method a 405 with `allow`.
  const notFound: Handler = (c, caller) => {
    const allow = otherMethods(c.req.path, c.req.method);
    const protocol = protocolOf(c);
    if (allow.length === 0)
      return errorResponse(
        protocol,
        { status: 404, errorClass: 'invalid_request', message: `no route for ${c.req.method} ${c.req.path}` },
        caller.requestId,
      );
    const response = errorResponse(
      protocol,
      {
        status: 405,
        errorClass: 'invalid_request',
        message: `${c.req.method} ${c.req.path}: use ${allow.join(' or ')}`,
      },
      caller.requestId,
    );
    response.headers.set('allow', allow.join(', '));
    return response;
  };
  // Under the keyed prefixes an unknown route is a 404 only for a valid key (401 otherwise, as before),
  // logged and counted as every request behind the keys is.
  const keyedNotFound: Route = (c) =>
    guarded(logged('other', protocolOf(c), notFound), undefined, 'other')(c);
  app.notFound((c) => (guardedPrefix.test(c.req.path) ? keyedNotFound : open(notFound))(c));
  app.onError((error, c) => {
    state.logger.warn('gateway: unexpected error', {
      error: error instanceof Error ? error.name : 'unknown',
    });
    return errorResponse(protocolOf(c), toWireError(error), c.get('requestId') ?? requestIdOf(c));
  });
  return app;
}

/** What a token count is asked in: its protocol, a model in its path (Gemini's), its log line, its admission. */
interface CountRoute {
  protocol: ProtocolName;
  model: string | undefined;
  /** Its access log line: the model is named on it as it is learnt. */
  line: LoggedRequest;
  /** Takes one of the key's requests of the minute: after the model check, as a generation's. */
  admit: () => Promise<void>;
}

async function countRequestTokens(
  c: Context<Env>,
  caller: Caller,
  state: GatewayState,
  { protocol, model, line, admit }: CountRoute,
): Promise<Response> {
  // Its body is held against max_request_bytes_in_flight, as a generation request's is, until the answer.
  const held = new HeldBody(state, holderOf(state, caller.key));
  // A client that leaves aborts the upstream count, as it aborts a generation; so does the end of a
  // shutdown's grace (the drain waits for a count in flight as for a generation).
  const controller = new AbortController();
  let clientLeft = false;
  const unwatch = watchClient({ outgoing: nodeOf(c.env).outgoing, request: c.req.raw }, () => {
    clientLeft = true;
    controller.abort(new Error('client disconnected'));
  });
  state.calls.add(controller);
  try {
    // A model in the path (Gemini's) is checked first, as the generation routes check it: a key's
    // refusal is a 403 whatever the body says (its `generateContentRequest.model` included).
    if (model !== undefined && model !== '') {
      line.model = model;
      permittedModel(state, caller.key, model);
    }
    const body = await readHeldJson(state, c.req.raw, incomingOf(c.env), held, controller.signal);
    // Gemini's `generateContentRequest` form is unwrapped; the model stays the path's.
    const decode = (request: unknown) => codecs[protocol].decodeRequest(request, { model, stream: false });
    const decoded = protocol === 'gemini' ? decodeCountTokens(body, model, decode) : decode(body);
    // The generation routes' model check; then an unknown name is a 404 (the registry's own error).
    line.model = decoded.model;
    const resolved = permittedModel(state, caller.key, decoded.model);
    if (resolved !== undefined) line.modelId = modelLabel(state, resolved);
    // A request the key may make takes one of its minute (a model it may not use took none).
    await admit();
    // Built-in tools count as the generation would send them: toward a Responses upstream, those
    // `gateway.builtin_tools` allows (a fixed estimate each, `builtinToolTokens`); elsewhere none.
    // An Anthropic client's server tools likewise: those the list allows go to Anthropic's count.
    const nativeRoute = isNativeRoute(protocol, resolved);
    leaveOutProviderTools(state, decoded, nativeRoute);
    const builtins = countBuiltinTools(decoded.builtinTools);
    // A Responses count takes in what its generation would: the stored conversation its
    // `previous_response_id` names and the items its `item_reference`s name (404 when unknown).
    const stored = withStoredResponses(state.store, decoded, scopeOf(caller.key?.name), held);
    if (stored !== undefined) await stored;
    // A client's `context-1m-*` flag to Claude opens the larger window (`contextWindowOf`), as for its generation.
    const betas = headerOf(c.req.raw, incomingOf(c.env), 'anthropic-beta');
    if (protocol === 'anthropic-messages' && resolved?.type === 'anthropic')
      applyClientBetas(decoded, betas, state.clientBetas);
    // What the count leaves out (built-in tools, beta flags) is named as for the generation.
    warnLeftOut(state, { requestId: caller.requestId, protocol }, decoded.warnings);
    // The provider's own count where the model's adapter can ask for one (a free call), else the
    // local estimate; a body estimated far past the model's window is never sent, only counted
    // until past it (a tokenizer over a 32 MiB body would hold the event loop for seconds).
    const asked = performance.now();
    const counted = await state.switchyard
      .countInputTokens({ ...decoded.request, model: decoded.model }, { signal: controller.signal })
      // An adapter without its key is never created: its estimator with it. The cheap bound
      // answers (no upstream is called), not an error blaming an upstream.
      .catch((error: unknown) => {
        if (isAdapterError(error) && error.providerCode === 'not_configured') {
          const { transcript, tools } = decoded.request;
          return { tokens: estimateUpperBound({ transcript, tools }), exact: false };
        }
        throw error;
      });
    // The upstream's time is not the gateway's own (the access log's `overheadMs`).
    line.ownMs -= performance.now() - asked;
    // The provider's own count includes the built-in tools it was sent; an estimate adds theirs.
    const tokens = counted.exact ? counted.tokens : counted.tokens + builtins;
    const response = json(c, caller, countReply(protocol, tokens), protocol);
    response.headers.set('x-switchyard-token-count', counted.exact ? 'exact' : 'estimate');
    return response;
  } catch (error) {
    const wire = toWireError(error);
    // Cancelled, and not by the client: the grace ended (its body may still be arriving).
    if (wire.errorClass !== 'cancelled' || clientLeft || state.accepting)
      return errorResponse(protocol, wire, caller.requestId);
    const response = errorResponse(protocol, shutDown().wire, caller.requestId);
    response.headers.set('connection', 'close');
    return response;
  } finally {
    state.calls.delete(controller);
    unwatch();
    held.release();
  }
}

/** A token count in the shape of the protocol's own count endpoint. */
function countReply(protocol: ProtocolName, tokens: number): Record<string, unknown> {
  if (protocol === 'gemini') return { totalTokens: tokens };
  if (protocol === 'openai-responses') return { object: 'response.input_tokens', input_tokens: tokens };
  return { input_tokens: tokens };
}

/** The 403 of a route for admin keys only. */
function adminRequired(requestId: string): Response {
  return errorResponse(
    'openai-chat',
    {
      status: 403,
      errorClass: 'auth',
      code: 'permission_error',
      message: 'an admin gateway key is required',
    },
    requestId,
  );
}

/** `GET /switchyard/v1/keys/{name}/usage`: spend and remaining budget of a key; admin keys only. */
async function serveKeyUsage(c: Context<Env>, caller: Caller, state: GatewayState): Promise<Response> {
  const { requestId } = caller;
  if (caller.key?.admin !== true) return adminRequired(requestId);
  const key = state.keys.find((candidate) => candidate.name === c.req.param('name'));
  if (key === undefined)
    return errorResponse(
      'openai-chat',
      { status: 404, errorClass: 'invalid_request', message: 'no gateway key by that name' },
      requestId,
    );
  try {
    return json(c, caller, await keyUsage(state.shared, key));
  } catch (error) {
    return errorResponse('openai-chat', toWireError(error), requestId);
  }
}

async function updateCircuits(state: GatewayState): Promise<void> {
  const keys = state.switchyard
    .providers()
    .filter((provider) => provider.configured)
    .map((provider) => `provider:${provider.name}`);
  // Every state read first (a shared store answers asynchronously), then the gauge replaced in one
  // synchronous step: a concurrent scrape never serializes it half reset.
  const states = await Promise.all(keys.map((key) => state.switchyard.availability.state(key)));
  state.metrics.circuits.reset();
  keys.forEach((key, index) => {
    for (const name of ['closed', 'open', 'half-open'])
      state.metrics.circuits.set({ key, state: name }, name === states[index] ? 1 : 0);
  });
}
