/** Decodes an Anthropic Messages request (`POST /v1/messages`) into the canonical request. */
import type { PromptCacheRequest, ReasoningEffort, ReasoningRequest } from '../../core/request.ts';
import {
  anthropicCallerMetadata,
  anthropicCitationsKey,
  cacheBreakpointKey,
  anthropicSearchResultKey,
  documentCitationsKey,
  documentContextKey,
  type MetadataMap,
} from '../../core/metadata.ts';
import type { ToolChoice } from '../../core/tools.ts';
import type { Item, Part, TextPart } from '../../core/transcript.ts';
import {
  bodyObject,
  jsonObject,
  optionalArray,
  optionalBoolean,
  optionalCount,
  optionalNumber,
  optionalString,
  optionalStrings,
  refuse,
  RequestFieldError,
  requiredString,
  temperatureRange,
  topPRange,
  shown,
} from '../fields.ts';
import {
  binaryPart,
  checkedToolChoice,
  guessImageMime,
  namedTool,
  pushParts,
  sentAt,
  toolOutput,
} from '../common.ts';
import type { DecodedRequest, OpaqueCodec } from '../types.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import { isServerBlockType } from './response.ts';
import { convertTools } from './server-tools.ts';

function convertSource(source: unknown, path: string, kind: 'image' | 'document'): Part {
  if (!isJsonObject(source)) throw new RequestFieldError(path, `${path} must be an object`);
  if (source.type === 'base64') {
    const mime = requiredString(source, 'media_type', `${path}.media_type`);
    return binaryPart(mime, { base64: requiredString(source, 'data', `${path}.data`) });
  }
  if (source.type === 'url') {
    const url = requiredString(source, 'url', `${path}.url`);
    return binaryPart(kind === 'image' ? guessImageMime(url) : 'application/pdf', { uri: url });
  }
  if (source.type === 'text' && kind === 'document') {
    const text = requiredString(source, 'data', `${path}.data`);
    return binaryPart('text/plain', { base64: Buffer.from(text, 'utf8').toString('base64') });
  }
  throw new RequestFieldError(
    `${path}.type`,
    `${path}.type '${shown(source.type)}' is not supported`,
    'unsupported',
  );
}

/**
 * A document: its source, its `title` as the file's name, and its `context` and citation setting
 * (`citations: {enabled: true}`) in the part's metadata, which Claude upstreams get back.
 */
function documentPart(block: Record<string, unknown>, path: string): Part {
  const part = convertSource(block.source, `${path}.source`, 'document');
  if (part.type !== 'file') return part;
  const title = optionalString(block, 'title', `${path}.title`);
  if (title !== undefined && title !== '') part.filename = title;
  const metadata: MetadataMap = {};
  const context = optionalString(block, 'context', `${path}.context`);
  if (context !== undefined && context !== '') metadata[documentContextKey] = context;
  const citations = block.citations;
  if (citations !== undefined && citations !== null) {
    const enabled = optionalBoolean(
      jsonObject(citations, `${path}.citations`),
      'enabled',
      `${path}.citations.enabled`,
    );
    if (enabled === true) metadata[documentCitationsKey] = true;
  }
  if (Object.keys(metadata).length > 0) part.metadata = metadata;
  return part;
}

/**
 * A `search_result` block (in a user turn or a tool result): a text part of the result written
 * out, so a provider without such blocks reads all of it, the block kept whole in its metadata
 * (`anthropicSearchResultKey`) for a Claude upstream, which takes it back as sent.
 */
function searchResultPart(block: Record<string, unknown>, path: string): Part {
  const source = requiredString(block, 'source', `${path}.source`);
  const title = requiredString(block, 'title', `${path}.title`);
  const content = block.content;
  if (!Array.isArray(content))
    throw new RequestFieldError(`${path}.content`, `${path}.content must be an array of text blocks`);
  const texts = content.map((inner, index) => {
    const text = jsonObject(inner, `${path}.content.${index}`);
    if (text.type !== 'text')
      throw new RequestFieldError(
        `${path}.content.${index}.type`,
        `${path}.content.${index} must be a text block`,
      );
    return requiredString(text, 'text', `${path}.content.${index}.text`);
  });
  // Its `cache_control` is not kept: the adapter places its own breakpoints (a marker turns them on).
  const { cache_control: _marker, ...kept } = block;
  return {
    type: 'text',
    text: `Search result: ${title}\nSource: ${source}\n\n${texts.join('\n\n')}`,
    metadata: { [anthropicSearchResultKey]: kept as JsonObject },
  };
}

function userBlock(block: Record<string, unknown>, path: string): Part {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: requiredString(block, 'text', `${path}.text`) };
    case 'image':
      return sentAt(convertSource(block.source, `${path}.source`, 'image'), path);
    case 'document':
      return sentAt(documentPart(block, path), path);
    case 'search_result':
      return searchResultPart(block, path);
    default:
      throw new RequestFieldError(
        `${path}.type`,
        `content block type '${shown(block.type)}' is not supported here`,
        'unsupported',
      );
  }
}

function toolResult(block: Record<string, unknown>, path: string): Part {
  const callId = requiredString(block, 'tool_use_id', `${path}.tool_use_id`);
  const content = block.content;
  let parts: Part[] = [];
  if (typeof content === 'string') parts = [{ type: 'text', text: content }];
  else if (Array.isArray(content))
    parts = content.map((inner, index) => {
      const innerPath = `${path}.content.${index}`;
      const object = jsonObject(inner, innerPath);
      // Tool search (Claude Code's ToolSearch) answers with references to deferred tools. The
      // gateway offers every tool in full (`defer_loading` is not kept), so a reference only says
      // the tool is loaded: text, as the model would read of the expanded definition.
      if (object.type === 'tool_reference')
        return {
          type: 'text',
          text: `Tool loaded: ${requiredString(object, 'tool_name', `${innerPath}.tool_name`)}`,
        };
      return userBlock(object, innerPath);
    });
  else if (content !== undefined && content !== null)
    throw new RequestFieldError(
      `${path}.content`,
      `${path}.content must be a string or an array of content blocks`,
    );
  // A search result stays a part (plain text output would lose the block kept on it).
  const searched = parts.some((part) => part.metadata?.[anthropicSearchResultKey] !== undefined);
  const result: Part = {
    type: 'tool-result',
    callId: callId as never,
    output: searched ? { type: 'parts', parts } : toolOutput(parts),
    isError: optionalBoolean(block, 'is_error', `${path}.is_error`) ?? false,
  };
  return sentAt(result, `${path}.tool_use_id`);
}

/**
 * What an Anthropic reply block carries beside its content, kept in the part's metadata under the
 * Anthropic adapter's keys so an Anthropic upstream gets it back: a text's `citations`, a tool
 * call's `caller` (made by code execution; a `direct` caller is the default and is not kept).
 */
function replyMetadata(block: Record<string, unknown>, path: string): { metadata?: JsonObject } {
  if (block.type === 'text') {
    const citations = optionalArray(block, 'citations', `${path}.citations`);
    return citations === undefined || citations.length === 0
      ? {}
      : { metadata: { [anthropicCitationsKey]: citations as JsonValue[] } };
  }
  const caller = block.caller;
  if (caller === undefined || caller === null) return {};
  const metadata = anthropicCallerMetadata(jsonObject(caller, `${path}.caller`));
  return metadata === undefined ? {} : { metadata };
}

function assistantBlock(block: Record<string, unknown>, path: string, opaque: OpaqueCodec): Part | undefined {
  switch (block.type) {
    case 'text':
      return {
        type: 'text',
        text: requiredString(block, 'text', `${path}.text`),
        ...replyMetadata(block, path),
      };
    case 'thinking': {
      const payload = opaque.unwrap(optionalString(block, 'signature', `${path}.signature`) ?? '');
      return {
        type: 'reasoning',
        text: optionalString(block, 'thinking', `${path}.thinking`) ?? '',
        ...payload,
      };
    }
    case 'redacted_thinking': {
      const payload = opaque.unwrap(requiredString(block, 'data', `${path}.data`));
      const data = payload.data ?? payload.signature;
      return {
        type: 'reasoning',
        text: '',
        redacted: true,
        ...payload,
        ...(data === undefined ? {} : { data }),
      };
    }
    case 'server_tool_use':
    case 'mcp_tool_use':
    case 'mcp_tool_result':
      return serverBlock(block);
    case 'container_upload':
      // Replayed as written, its `file_id` would put a file of the operator's account (one client
      // could name another's upload) in the code execution container, as Responses' `file_id`s would.
      if (block.file_id !== undefined)
        throw new RequestFieldError(
          `${path}.file_id`,
          'uploaded file ids are not supported by the gateway',
          'unsupported',
        );
      return serverBlock(block);
    case 'tool_use':
      return sentAt(
        {
          type: 'tool-call',
          id: requiredString(block, 'id', `${path}.id`) as never,
          name: requiredString(block, 'name', `${path}.name`),
          input: jsonObject(block.input ?? {}, `${path}.input`),
          ...replyMetadata(block, path),
        },
        `${path}.id`,
      );
    default:
      if (isServerBlockType(block.type)) return serverBlock(block);
      throw new RequestFieldError(
        `${path}.type`,
        `content block type '${shown(block.type)}' is not supported here`,
        'unsupported',
      );
  }
}

/**
 * A server tool's call or result in the history (`server_tool_use`, `web_search_tool_result`, …):
 * kept whole as an Anthropic custom part, which an Anthropic upstream takes back verbatim and
 * another provider leaves out (with the projection WARN), as the Anthropic adapter keeps them.
 */
function serverBlock(block: Record<string, unknown>): Part {
  return {
    type: 'custom',
    provider: 'anthropic',
    kind: block.type as string,
    data: { ...block } as JsonObject,
  };
}

function blocksOf(content: unknown, path: string): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw new RequestFieldError(path, `${path} must be a string or an array`);
  return content.map((block, index) => jsonObject(block, `${path}.${index}`));
}

function convertMessage(message: unknown, index: number, transcript: Item[], opaque: OpaqueCodec): void {
  const path = `messages.${index}`;
  if (!isJsonObject(message)) throw new RequestFieldError(path, `${path} must be an object`);
  const blocks = blocksOf(message.content, `${path}.content`);
  if (message.role === 'assistant') {
    const parts = blocks.flatMap((block, at) => {
      const part = assistantBlock(block, `${path}.content.${at}`, opaque);
      return part === undefined || (part.type === 'text' && part.text === '') ? [] : [part];
    });
    pushParts(transcript, 'assistant', parts);
    return;
  }
  if (message.role === 'system') {
    // Newer clients (Claude Code 2.x) send instructions as `system` turns between messages.
    const parts = blocks.map((block, at) => userBlock(block, `${path}.content.${at}`));
    if (parts.length > 0) transcript.push({ kind: 'system', parts });
    return;
  }
  if (message.role !== 'user')
    throw new RequestFieldError(`${path}.role`, `${path}.role must be user, assistant or system`);
  // Refused as the Messages API refuses it: left out, a trailing one would make a prefill.
  if (blocks.length === 0)
    throw new RequestFieldError(`${path}.content`, `${path}.content must not be empty`);
  for (const [at, block] of blocks.entries()) {
    const blockPath = `${path}.content.${at}`;
    if (block.type === 'tool_result') pushParts(transcript, 'tool', [toolResult(block, blockPath)]);
    else pushParts(transcript, 'user', [userBlock(block, blockPath)]);
  }
}

/**
 * The prompt cache the client asked for: any `cache_control` marker — on the request, a system
 * block, a tool, a message's block or a tool result's — turns it on (the adapter places its own
 * breakpoints); `ttl: '1h'` on any of them asks for the one-hour cache, which the Anthropic adapter
 * then writes (a one-hour marker dropped to five minutes would pay the cache write again each gap).
 */
function cacheRequest(body: Record<string, unknown>): PromptCacheRequest | undefined {
  let marked = false;
  let hour = false;
  const visit = (value: unknown) => {
    if (!isJsonObject(value) || !isJsonObject(value.cache_control)) return;
    marked = true;
    if (isJsonObject(value.cache_control) && value.cache_control.ttl === '1h') hour = true;
  };
  const visitAll = (value: unknown) => {
    if (Array.isArray(value)) for (const block of value) visit(block);
  };
  visit(body);
  visitAll(body.system);
  visitAll(body.tools);
  if (Array.isArray(body.messages))
    for (const message of body.messages) {
      if (!isJsonObject(message) || !Array.isArray(message.content)) continue;
      for (const block of message.content) {
        visit(block);
        if (isJsonObject(block)) visitAll(block.content);
      }
    }
  if (!marked) return undefined;
  return hour ? { ttl: '1h' } : {};
}

/**
 * The system prompt as one system item: its blocks' texts joined, one part per run of blocks that a
 * `cache_control` marker ends (the run after the last marker, if any, a part of its own), so the
 * cached prefix ends where the client put it — before a block that changes per request. A marked
 * part carries its TTL (`cacheBreakpointKey`); the parts join as the blocks did for any adapter.
 * Without a marker before the last block it is one part, unmarked: the Anthropic adapter marks the
 * end of the system prompt itself.
 */
function convertSystem(system: unknown, transcript: Item[]): void {
  if (system === undefined || system === null) return;
  const blocks = blocksOf(system, 'system');
  const texts = blocks.map((block, index) => requiredString(block, 'text', `system.${index}.text`));
  const ttls = blocks.map((block) => markerTtl(block.cache_control));
  if (ttls.slice(0, -1).every((ttl) => ttl === undefined)) {
    const text = texts.join('\n\n');
    if (text !== '') transcript.push({ kind: 'system', parts: [{ type: 'text', text }] });
    return;
  }
  const parts: TextPart[] = [];
  let from = 0;
  ttls.forEach((ttl, index) => {
    if (ttl === undefined && index < blocks.length - 1) return;
    const text = texts.slice(from, index + 1).join('\n\n');
    from = index + 1;
    if (text !== '')
      parts.push(
        ttl === undefined
          ? { type: 'text', text }
          : { type: 'text', text, metadata: { [cacheBreakpointKey]: ttl } },
      );
  });
  if (parts.length > 0) transcript.push({ kind: 'system', parts });
}

/**
 * The TTL of a `cache_control` marker (`1h`, else `5m`), or undefined for none: only an object is a
 * marker (`false` or `0` is none, never a cache write the client did not ask for).
 */
function markerTtl(marker: unknown): '5m' | '1h' | undefined {
  if (!isJsonObject(marker)) return undefined;
  return marker.ttl === '1h' ? '1h' : '5m';
}

function convertToolChoice(value: unknown): { choice?: ToolChoice; parallel?: boolean } {
  if (value === undefined || value === null) return {};
  const object = jsonObject(value, 'tool_choice');
  const parallel = object.disable_parallel_tool_use === true ? false : undefined;
  const choices: Record<string, ToolChoice> = { auto: 'auto', any: 'required', none: 'none' };
  if (object.type === 'tool') return { choice: namedTool(object.name, 'tool_choice.name'), parallel };
  const choice = typeof object.type === 'string' ? choices[object.type] : undefined;
  if (choice === undefined)
    throw new RequestFieldError('tool_choice.type', 'tool_choice.type must be auto, any, tool or none');
  return { choice, parallel };
}

/**
 * `thread` (the message-threads beta: the server holds the conversation, a turn sends only its new
 * messages). The gateway keeps no threads: `create` carries the whole conversation and is served as
 * it is; `continue` is the 404 `thread_not_found` the SDKs answer by sending the whole conversation
 * again under `create` — never served as if its few messages were the whole conversation.
 */
function checkThread(value: unknown): void {
  if (value === undefined || value === null) return;
  const thread = jsonObject(value, 'thread');
  if (thread.type === 'create') return;
  if (thread.type !== 'continue')
    throw new RequestFieldError('thread.type', "thread.type must be 'create' or 'continue'");
  throw new RequestFieldError(
    'thread.previous_message_id',
    'thread.previous_message_id: the gateway keeps no message threads; send the whole conversation',
    'unsupported',
    { status: 404, details: { error_code: 'thread_not_found' } },
  );
}

/** `output_config.effort` → the canonical effort (`max` is the most there is: xhigh). */
const efforts: Readonly<Record<string, ReasoningRequest['effort']>> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'max',
};

/** `output_config.effort` → the canonical effort; absent or unknown → undefined. */
function outputEffort(outputConfig: unknown): ReasoningRequest['effort'] {
  const effort = isJsonObject(outputConfig) ? outputConfig.effort : undefined;
  return typeof effort === 'string' && Object.hasOwn(efforts, effort) ? efforts[effort] : undefined;
}

/**
 * `thinking` (a budget, or adaptive) with `output_config.effort` — Claude Code sends adaptive
 * thinking at an effort, which went nowhere before (OpenAI got no `reasoning_effort`, Gemini no
 * budget) — as the effort (beside a budget when one is given); adaptive thinking without an effort leaves the
 * effort unset (the API's default, `high`, is the upstream's to apply). `output_config.effort`
 * without `thinking` steers the answer without thinking (`thinking: false`). `{type: 'disabled'}`
 * turns reasoning off (effort `none`), so an upstream that reasons by default does not; an effort
 * beside it waits for the route ({@link routeDisabledThinkingEffort}).
 */
function convertThinking(value: unknown, outputConfig: unknown): ReasoningRequest | undefined {
  const effort = outputEffort(outputConfig);
  if (value === undefined || value === null)
    return effort === undefined ? undefined : { effort, thinking: false };
  const object = jsonObject(value, 'thinking');
  if (object.type === 'disabled') return { effort: 'none' };
  const budget = optionalCount(object, 'budget_tokens', 'thinking.budget_tokens');
  // A budget with an effort keeps both: a model that takes both gets both (Opus 4.5).
  if (budget !== undefined)
    return effort === undefined
      ? { budgetTokens: budget, includeThoughts: true }
      : { budgetTokens: budget, effort, includeThoughts: true };
  return effort === undefined ? { includeThoughts: true } : { effort, includeThoughts: true };
}

/** The effort sent beside `thinking: {type: 'disabled'}`, if any (`DecodedRequest.disabledThinkingEffort`). */
function disabledThinkingEffort(value: unknown, outputConfig: unknown): ReasoningEffort | undefined {
  if (!isJsonObject(value) || value.type !== 'disabled') return undefined;
  const effort = outputEffort(outputConfig);
  return effort === 'none' ? undefined : effort;
}

/**
 * An effort sent with `thinking: {type: 'disabled'}`, by route (the gateway decides, as it does for
 * built-in tools): toward an Anthropic upstream (`native`) the effort without thinking
 * (`output_config.effort` alone, which Anthropic takes from Opus 4.5 on; the adapter WARNs for a
 * model that takes none); toward another provider an effort is thinking effort, so reasoning stays
 * off and the request's WARN names the effort it could not honour.
 */
export function routeDisabledThinkingEffort(decoded: DecodedRequest, native: boolean): void {
  const effort = decoded.disabledThinkingEffort;
  if (effort === undefined) return;
  delete decoded.disabledThinkingEffort;
  if (native) {
    decoded.request.reasoning = { effort, thinking: false };
    return;
  }
  (decoded.warnings ??= []).push(
    `output_config.effort: effort '${effort}' is not honoured (thinking is disabled, and only an Anthropic upstream takes an effort without thinking); reasoning is off`,
  );
}

function convertOutputFormat(body: Record<string, unknown>): DecodedRequest['request']['outputSchema'] {
  const format =
    body.output_format ?? (isJsonObject(body.output_config) ? body.output_config.format : undefined);
  if (format === undefined || format === null) return undefined;
  const object = jsonObject(format, 'output_format');
  if (object.type !== 'json_schema')
    throw new RequestFieldError(
      'output_format.type',
      'output_format.type must be json_schema',
      'unsupported',
    );
  return { schema: jsonObject(object.schema, 'output_format.schema') };
}

/** Decodes a Messages request; unknown fields are ignored, unhonourable ones refused by name. */
export function decodeRequest(body: unknown, opaque: OpaqueCodec): DecodedRequest {
  const object = bodyObject(body);
  checkThread(object.thread);
  // Where inference runs is a promise about the data (residency), not a hint: served elsewhere
  // without a word, the client would believe it kept. The upstream and its region are the operator's.
  // `global` (Anthropic's default: anywhere) promises nothing, and is served.
  refuse(
    object,
    'inference_geo',
    ['global'],
    'choosing the inference region is not supported by the gateway: the upstream and its region are the operator’s',
  );
  const transcript: Item[] = [];
  convertSystem(object.system, transcript);
  const messages = optionalArray(object, 'messages');
  if (messages === undefined || messages.length === 0)
    throw new RequestFieldError('messages', 'messages must be a non-empty array');
  messages.forEach((message, index) => {
    convertMessage(message, index, transcript, opaque);
  });
  const { choice, parallel } = convertToolChoice(object.tool_choice);
  const request: DecodedRequest['request'] = { transcript };
  const tools = convertTools(object);
  if (tools.specs.length > 0) request.tools = tools.specs;
  if (tools.server.length > 0) request.providerOptions = { anthropic: { tools: tools.server } };
  // A server tool may be the one the choice names, or the only tool `any` can call.
  const offered = [
    ...tools.specs,
    ...tools.server.map((tool) => ({ name: tool.name as string, inputSchema: {} })),
  ];
  if (choice !== undefined) request.toolChoice = checkedToolChoice(choice, offered, 'tool_choice');
  if (parallel !== undefined) request.parallelToolCalls = parallel;
  const maxTokens = optionalCount(object, 'max_tokens');
  if (maxTokens !== undefined) request.maxOutputTokens = maxTokens;
  const stops = optionalStrings(object, 'stop_sequences');
  if (stops !== undefined && stops.length > 0) request.stopSequences = stops;
  const temperature = optionalNumber(object, 'temperature', 'temperature', temperatureRange);
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(object, 'top_p', 'top_p', topPRange);
  if (topP !== undefined) request.topP = topP;
  const topK = optionalCount(object, 'top_k');
  if (topK !== undefined) request.topK = topK;
  const reasoning = convertThinking(object.thinking, object.output_config);
  if (reasoning !== undefined) request.reasoning = reasoning;
  const outputSchema = convertOutputFormat(object);
  if (outputSchema !== undefined) request.outputSchema = outputSchema;
  const cache = cacheRequest(object);
  if (cache !== undefined) request.cache = cache;
  const decoded: DecodedRequest = {
    model: requiredString(object, 'model'),
    stream: optionalBoolean(object, 'stream') ?? false,
    request,
  };
  if (tools.server.length > 0)
    decoded.serverTools = tools.server.map((tool, index) => ({
      path: tools.paths[index]!,
      type: tool.type as string,
    }));
  const disabledEffort = disabledThinkingEffort(object.thinking, object.output_config);
  if (disabledEffort !== undefined) decoded.disabledThinkingEffort = disabledEffort;
  return decoded;
}
