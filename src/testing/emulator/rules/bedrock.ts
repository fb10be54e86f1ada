/**
 * Bedrock request rules: a SigV4 `authorization` header of the right shape (or a bearer token),
 * Converse message order and tool pairing, Claude's sampling and thinking-turn rules through
 * Converse, and the InvokeModel Anthropic body (`anthropic_version: bedrock-2023-05-31`, no `model`).
 */
import type { JsonScript, RecordedRequest } from '../types.ts';
import { checkAnthropicBody, stopSequenceViolation, thinkingOn, thinkingTurnViolation } from './anthropic.ts';

/** A Bedrock error response: `{"message"}` with the exception name in `x-amzn-errortype`. */
export function bedrockError(status: number, exception: string, message: string): JsonScript {
  return {
    type: 'json',
    status,
    body: { message },
    headers: {
      'x-amzn-errortype': `${exception}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      'x-amzn-requestid': '5b0a2f1e-7c1d-4b8e-9d3f-0a1b2c3d4e5f',
    },
  };
}

const sigV4 =
  /^AWS4-HMAC-SHA256 Credential=[A-Z0-9]{16,128}\/\d{8}\/[a-z0-9-]+\/bedrock\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/;

/** The SigV4 header shape (credential scope of service `bedrock`, signed headers, 64-hex signature) or a bearer token. */
export function checkSignature(request: RecordedRequest): JsonScript | undefined {
  const authorization = request.headers.authorization ?? '';
  if (/^Bearer \S+$/.test(authorization)) return undefined;
  if (authorization === '') return bedrockError(403, 'AccessDeniedException', 'Missing Authentication Token');
  if (!sigV4.test(authorization) || !/^\d{8}T\d{6}Z$/.test(request.headers['x-amz-date'] ?? ''))
    return bedrockError(
      403,
      'InvalidSignatureException',
      'The request signature we calculated does not match the signature you provided.',
    );
  const signed = /SignedHeaders=([a-z0-9;-]+)/.exec(authorization)?.[1]?.split(';') ?? [];
  if (!signed.includes('host') || !signed.includes('x-amz-date'))
    return bedrockError(403, 'InvalidSignatureException', "'Host' and 'X-Amz-Date' must be signed.");
  return undefined;
}

type Block = Record<string, unknown>;

function invalid(message: string): JsonScript {
  return bedrockError(400, 'ValidationException', message);
}

function blocksOf(message: unknown): Block[] {
  const content = (message as { content?: unknown } | null)?.content;
  return Array.isArray(content)
    ? content.filter((block): block is Block => typeof block === 'object' && block !== null)
    : [];
}

function checkOrder(messages: unknown[]): JsonScript | undefined {
  let previous: unknown;
  for (const [index, message] of messages.entries()) {
    const role = (message as { role?: unknown } | null)?.role;
    if (role !== 'user' && role !== 'assistant')
      return invalid(`messages.${index}.role: must be user or assistant`);
    if (index === 0 && role !== 'user')
      return invalid(
        'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
      );
    if (role === previous)
      return invalid(
        'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.',
      );
    if (blocksOf(message).length === 0)
      return invalid(
        `The content field in the Message object at messages.${index} is empty. Add a ContentBlock object to the content field and try again.`,
      );
    previous = role;
  }
  return undefined;
}

function checkTools(body: Record<string, unknown>, messages: unknown[]): JsonScript | undefined {
  const usesTools = messages.some((message) =>
    blocksOf(message).some((block) => 'toolUse' in block || 'toolResult' in block),
  );
  if (usesTools && typeof body.toolConfig !== 'object')
    return invalid('The toolConfig field must be defined when using toolUse and toolResult content blocks.');
  for (const [index, message] of messages.entries()) {
    const offered = blocksOf(messages[index - 1])
      .map((block) => (block.toolUse as { toolUseId?: unknown } | undefined)?.toolUseId)
      .filter((id) => id !== undefined);
    for (const block of blocksOf(message)) {
      const id = (block.toolResult as { toolUseId?: unknown } | undefined)?.toolUseId;
      if (id !== undefined && !offered.includes(id))
        return invalid(
          `The number of toolResult blocks at messages.${index}.content exceeds the number of toolUse blocks of previous turn.`,
        );
    }
  }
  return undefined;
}

/** Claude 4.5 and later (`anthropic.claude-sonnet-4-5-…`, any region prefix): temperature or top_p, not both. */
const exclusiveSampling = /anthropic\.claude-(?:sonnet|opus|haiku)-(\d+)-(\d+)/;

/**
 * Claude's sampling rules as Bedrock answers them through Converse (each a ValidationException
 * that quotes the model): an empty or whitespace-only stop sequence; temperature and topP together
 * on 4.5 and later; under thinking, a temperature other than 1 or a `top_k`.
 */
function checkSampling(request: RecordedRequest, body: Record<string, unknown>): JsonScript | undefined {
  const model = decodeURIComponent(/^\/model\/([^/]+)\//.exec(request.path)?.[1] ?? '');
  if (!model.includes('anthropic.claude')) return undefined;
  const inference = (body.inferenceConfig ?? {}) as Record<string, unknown>;
  const additional = (body.additionalModelRequestFields ?? {}) as Record<string, unknown>;
  const stops = stopSequenceViolation(inference.stopSequences);
  if (stops !== undefined) return invalid(`The model returned the following errors: ${stops}`);
  const version = exclusiveSampling.exec(model);
  const recent = version !== null && (Number(version[1]) > 4 || Number(version[2]) >= 5);
  if (recent && inference.temperature !== undefined && inference.topP !== undefined)
    return invalid(
      'The model returned the following errors: `temperature` and `top_p` cannot both be specified for this model. Please use only one.',
    );
  if ((additional.thinking as { type?: unknown } | undefined)?.type !== 'enabled') return undefined;
  if (inference.temperature !== undefined && inference.temperature !== 1)
    return invalid(
      'The model returned the following errors: `temperature` may only be set to 1 when thinking is enabled.',
    );
  if (additional.top_k !== undefined)
    return invalid(
      'The model returned the following errors: `top_k` is not allowed when thinking is enabled.',
    );
  return undefined;
}

/** A Converse block's type as Claude names it (`reasoningContent` is `thinking`, `toolUse` `tool_use`, …). */
function claudeBlockType(block: Block): string {
  if ('reasoningContent' in block) {
    const reasoning = block.reasoningContent as { redactedContent?: unknown } | null;
    return reasoning !== null && typeof reasoning === 'object' && 'redactedContent' in reasoning
      ? 'redacted_thinking'
      : 'thinking';
  }
  if ('toolUse' in block) return 'tool_use';
  if ('toolResult' in block) return 'tool_result';
  if ('image' in block) return 'image';
  if ('document' in block) return 'document';
  return 'text';
}

/**
 * Claude's thinking rule through Converse (a ValidationException quoting the model, as reported in
 * opencode#3077 and langchain-aws#844): with `thinking` enabled, a tool-use turn still in progress
 * must start with a reasoning block (`thinkingTurnViolation`). Cache points are not content.
 */
function checkThinkingTurn(request: RecordedRequest, body: Record<string, unknown>): JsonScript | undefined {
  const model = decodeURIComponent(/^\/model\/([^/]+)\//.exec(request.path)?.[1] ?? '');
  if (!model.includes('anthropic.claude')) return undefined;
  const additional = (body.additionalModelRequestFields ?? {}) as Record<string, unknown>;
  if (!thinkingOn(additional.thinking)) return undefined;
  const shapes = (body.messages as unknown[]).map((message) => ({
    role: (message as { role?: unknown } | null)?.role,
    types: blocksOf(message)
      .filter((block) => !('cachePoint' in block))
      .map(claudeBlockType),
  }));
  const violation = thinkingTurnViolation(shapes);
  return violation === undefined
    ? undefined
    : invalid(`The model returned the following errors: ${violation}`);
}

/** Checks a Converse request. */
export function checkConverseRequest(request: RecordedRequest): JsonScript | undefined {
  const denied = checkSignature(request);
  if (denied !== undefined) return denied;
  if (typeof request.body !== 'object' || request.body === null)
    return invalid('Malformed input request, please reformat your input and try again.');
  const body = request.body as Record<string, unknown>;
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return invalid('messages: at least one message is required');
  return (
    checkOrder(body.messages) ??
    checkTools(body, body.messages) ??
    checkDocumentNames(body.messages) ??
    checkCachePoints(body) ??
    checkSampling(request, body) ??
    checkThinkingTurn(request, body)
  );
}

/**
 * Converse refuses two document blocks of one name anywhere in the request, tool results included
 * (a ValidationException, as other gateways found: bifrost#7003, litellm#30093).
 */
function checkDocumentNames(messages: unknown[]): JsonScript | undefined {
  const names = new Set<string>();
  const visit = (value: unknown): boolean => {
    if (Array.isArray(value)) return value.some(visit);
    if (typeof value !== 'object' || value === null) return false;
    const { document } = value as { document?: { name?: unknown } };
    if (typeof document?.name === 'string') {
      if (names.has(document.name)) return true;
      names.add(document.name);
    }
    return Object.values(value).some(visit);
  };
  return messages.some(visit) ? invalid("Messages can't contain duplicate document names") : undefined;
}

/**
 * Cache points (`{cachePoint:{…}}` blocks in `toolConfig.tools`, `system` and message `content`,
 * the prompt's order): at most 4 in a request (AWS's prompt-caching limit, Anthropic's too), none
 * right after a reasoning block (Bedrock's ValidationException, as reported in opencode#36517), a
 * `ttl` of `5m` or `1h` only (CachePointBlock), and no longer TTL after a shorter one (none is 5
 * minutes). The wording of the count and TTL refusals is the emulator's own.
 */
function checkCachePoints(body: Record<string, unknown>): JsonScript | undefined {
  const arrays: unknown[][] = [];
  const tools = (body.toolConfig as { tools?: unknown } | undefined)?.tools;
  if (Array.isArray(tools)) arrays.push(tools);
  if (Array.isArray(body.system)) arrays.push(body.system);
  for (const message of body.messages as unknown[]) arrays.push(blocksOf(message));
  let count = 0;
  let fiveMinutes = false;
  for (const blocks of arrays)
    for (const [index, block] of blocks.entries()) {
      if (typeof block !== 'object' || block === null || !('cachePoint' in block)) continue;
      count++;
      const before = blocks[index - 1];
      if (typeof before === 'object' && before !== null && 'reasoningContent' in before)
        return invalid(
          'Cache point cannot be inserted after reasoning block. Please remove the invalid cache point and try again.',
        );
      const ttl = (block.cachePoint as { ttl?: unknown } | null)?.ttl;
      if (ttl !== undefined && ttl !== '5m' && ttl !== '1h')
        return invalid(`cachePoint.ttl: ${JSON.stringify(ttl)} is not one of 5m, 1h`);
      if (ttl === '1h' && fiveMinutes)
        return invalid(
          'A cache point with a longer TTL cannot follow one with a shorter TTL (tools, then system, then messages).',
        );
      if (ttl !== '1h') fiveMinutes = true;
    }
  return count > 4
    ? invalid(`A maximum of 4 cache points may be provided in a request. Found ${count}.`)
    : undefined;
}

/** Checks an InvokeModel request carrying an Anthropic body. */
export function checkInvokeRequest(request: RecordedRequest): JsonScript | undefined {
  const denied = checkSignature(request);
  if (denied !== undefined) return denied;
  const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<
    string,
    unknown
  >;
  if (body.anthropic_version !== 'bedrock-2023-05-31')
    return invalid('anthropic_version: invalid or missing; expected bedrock-2023-05-31');
  if ('model' in body)
    return invalid(
      'Malformed input request: extraneous key [model] is not permitted, please reformat your input and try again.',
    );
  if ('stream' in body)
    return invalid(
      'Malformed input request: extraneous key [stream] is not permitted, please reformat your input and try again.',
    );
  return checkAnthropicBody(request);
}
