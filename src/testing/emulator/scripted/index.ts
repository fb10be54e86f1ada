/**
 * Scripted responses: the script becomes canonical stream events and a canonical response, which
 * the production codec of the request's protocol encodes — the emulator is a gateway whose upstream
 * is a script, and no protocol is written twice.
 */
import { codecs } from '../../../codecs/index.ts';
import type { ChatReasoningField, EncodeContext } from '../../../codecs/types.ts';
import type { StreamEvent } from '../../../core/events.ts';
import type { FinishReason } from '../../../core/finish-reason.ts';
import { isJsonObject, type JsonObject } from '../../../core/json.ts';
import { createRequestId, type ToolCallId } from '../../../core/ids.ts';
import type { CanonicalResponse } from '../../../core/request.ts';
import type { Part } from '../../../core/transcript.ts';
import type { Usage } from '../../../core/usage.ts';
import {
  createEventStreamPlan,
  createJsonArrayPlan,
  createJsonPlan,
  createStreamPlan,
  type ResponsePlan,
  type WireFrame,
} from '../frames.ts';
import {
  createAnthropicRequestId,
  createAnthropicToolId,
  createOpenaiCallId,
  createSignature,
  randomToken,
} from '../ids.ts';
import {
  bodyField,
  isJsonArrayStream,
  isStreamingRequest,
  requestedModel,
  wantsStreamUsage,
} from '../routing.ts';
import type { EmulatorProtocolId, RecordedRequest, ScriptedContent, ScriptedScript } from '../types.ts';
import { emulatorProtocols } from '../protocols.ts';
import { createConverseBody, createConverseFrames, toChunkFrames } from './bedrock.ts';
import { chunkText, hasToolCall, resolveUsage } from './shared.ts';

interface Synthesizer {
  defaultModel: string;
  createToolId(): string;
  headers(): Record<string, string>;
}

const openaiHeaders = () => ({ 'x-request-id': `req_${randomToken(32, '0123456789abcdef')}` });

const synthesizers: Record<EmulatorProtocolId, Synthesizer> = {
  'anthropic-messages': {
    defaultModel: 'claude-sonnet-4-5-20250929',
    createToolId: createAnthropicToolId,
    headers: () => ({ 'request-id': createAnthropicRequestId() }),
  },
  'openai-chat': {
    defaultModel: 'gpt-4.1-nano-2025-04-14',
    createToolId: createOpenaiCallId,
    headers: openaiHeaders,
  },
  'openai-responses': {
    defaultModel: 'gpt-5-mini-2025-08-07',
    createToolId: createOpenaiCallId,
    headers: openaiHeaders,
  },
  gemini: {
    defaultModel: 'gemini-2.5-flash',
    createToolId: () => `gc_${randomToken(12)}`,
    headers: () => ({}),
  },
  'bedrock-converse': {
    defaultModel: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
    createToolId: () => `tooluse_${randomToken(22)}`,
    headers: bedrockHeaders,
  },
  'bedrock-invoke': {
    defaultModel: 'claude-sonnet-4-5-20250929',
    createToolId: createAnthropicToolId,
    headers: bedrockHeaders,
  },
  'vertex-anthropic': {
    defaultModel: 'claude-sonnet-4-5@20250929',
    createToolId: createAnthropicToolId,
    headers: () => ({}),
  },
};

function bedrockHeaders(): Record<string, string> {
  const hex = () => randomToken(8, '0123456789abcdef');
  return {
    'x-amzn-requestid': `${hex()}-${hex().slice(0, 4)}-4${hex().slice(0, 3)}-8${hex().slice(0, 3)}-${hex()}${hex().slice(0, 4)}`,
  };
}

/** The codec of a protocol's body: Claude on Bedrock (InvokeModel) and on Vertex speak Anthropic's Messages. */
function codecOf(protocol: Exclude<EmulatorProtocolId, 'bedrock-converse'>) {
  return codecs[
    protocol === 'bedrock-invoke' || protocol === 'vertex-anthropic' ? 'anthropic-messages' : protocol
  ];
}

/**
 * Gemini 3 signs the first `functionCall` of every response; when the script gives that call no
 * signature and the model is a Gemini 3 one, a generated signature stands in for it.
 */
function signedContent(
  protocol: EmulatorProtocolId,
  content: ScriptedContent[],
  model: string,
): ScriptedContent[] {
  const firstCall = content.findIndex((part) => part.type === 'tool-call');
  const first = content[firstCall];
  if (
    protocol !== 'gemini' ||
    !model.includes('gemini-3') ||
    first?.type !== 'tool-call' ||
    first.signature !== undefined
  )
    return content;
  return content.map((part, index) =>
    index === firstCall ? { ...first, signature: createSignature() } : part,
  );
}

/** The script's content as canonical parts; Responses reasoning gets encrypted content when `include` asks. */
function scriptParts(content: ScriptedContent[], synthesizer: Synthesizer, encrypted: boolean): Part[] {
  return content.map((part): Part => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'custom')
      return { type: 'custom', provider: 'emulator', kind: part.kind, data: part.data as JsonObject };
    if (part.type === 'reasoning') {
      const reasoning: Part = { type: 'reasoning', text: part.text };
      if (part.signature !== undefined) reasoning.signature = part.signature;
      else if (encrypted) reasoning.data = `gAAAAAB${randomToken(96)}`;
      return reasoning;
    }
    const call: Part = {
      type: 'tool-call',
      id: (part.id ?? synthesizer.createToolId()) as ToolCallId,
      name: part.name,
      input: part.input as never,
    };
    if (part.signature !== undefined) call.signature = part.signature;
    return call;
  });
}

function partEvents(part: Part, index: number, chunkSize: number | undefined): StreamEvent[] {
  if (part.type === 'text') {
    const deltas = chunkText(part.text, chunkSize).map((delta): StreamEvent => ({
      type: 'text-delta',
      index,
      delta,
    }));
    return [{ type: 'text-start', index }, ...deltas, { type: 'text-end', index }];
  }
  if (part.type === 'reasoning') {
    const deltas = chunkText(part.text, chunkSize).map((delta): StreamEvent => ({
      type: 'reasoning-delta',
      index,
      delta,
    }));
    const end: StreamEvent = { type: 'reasoning-end', index };
    if (part.signature !== undefined) end.signature = part.signature;
    if (part.data !== undefined) end.data = part.data;
    return [{ type: 'reasoning-start', index }, ...deltas, end];
  }
  if (part.type === 'custom') return [{ type: 'custom', index, part }];
  if (part.type !== 'tool-call') return [];
  const { id, name, input } = part;
  const deltas = chunkText(JSON.stringify(input), chunkSize).map((delta): StreamEvent => ({
    type: 'tool-call-delta',
    index,
    id,
    delta,
  }));
  const end: StreamEvent = { type: 'tool-call-end', index, id, input };
  if (part.signature !== undefined) end.signature = part.signature;
  return [{ type: 'tool-call-start', index, id, name }, ...deltas, end];
}

function scriptUsage(script: ScriptedScript): Usage {
  const usage = resolveUsage(script);
  return { ...usage, output: usage.output + usage.reasoning };
}

/** The encoding context a request gives: the model, stream usage, Responses state and reasoning options. */
function encodeContext(
  script: ScriptedScript,
  protocol: EmulatorProtocolId,
  request: RecordedRequest,
  reasoningField: ChatReasoningField | undefined,
): EncodeContext {
  const model = script.model ?? requestedModel(request) ?? synthesizers[protocol].defaultModel;
  const context: EncodeContext = {
    model,
    streamUsage: wantsStreamUsage(request),
    startUsage: scriptUsage(script),
  };
  if (script.finishReason !== undefined) context.finishReason = script.finishReason;
  if (protocol === 'openai-chat' && reasoningField !== undefined) context.reasoningField = reasoningField;
  if (protocol === 'openai-responses') {
    context.store = bodyField(request.body, 'store') !== false;
    const previous = bodyField(request.body, 'previous_response_id');
    if (typeof previous === 'string') context.previousResponseId = previous;
    const tools = bodyField(request.body, 'tools');
    if (Array.isArray(tools)) {
      const freeform = new Set<string>();
      for (const tool of tools)
        if (isJsonObject(tool) && tool.type === 'custom' && typeof tool.name === 'string')
          freeform.add(tool.name);
      if (freeform.size > 0) context.freeform = freeform;
    }
  }
  return context;
}

function frameData(frame: WireFrame): string {
  return 'raw' in frame ? frame.raw : frame.data;
}

/**
 * Builds the plan for a scripted response: JSON for plain requests, the protocol's SSE sequence for
 * streams, or the same chunks as a streamed JSON array for Gemini streams without `alt=sse`;
 * Chat Completions reasoning goes in `reasoningField` (`EmulatorOptions.chatReasoningField`).
 */
export function createScriptedPlan(
  script: ScriptedScript,
  protocol: EmulatorProtocolId,
  request: RecordedRequest,
  reasoningField?: ChatReasoningField,
): ResponsePlan {
  const synthesizer = synthesizers[protocol];
  const context = encodeContext(script, protocol, request, reasoningField);
  if (protocol === 'bedrock-converse') {
    if (!isStreamingRequest(protocol, request))
      return createJsonPlan(200, createConverseBody(script), synthesizer.headers());
    return createEventStreamPlan(createConverseFrames(script), 200, synthesizer.headers());
  }
  const include = bodyField(request.body, 'include');
  const encrypted =
    protocol === 'openai-responses' &&
    Array.isArray(include) &&
    include.includes('reasoning.encrypted_content');
  const content = scriptParts(signedContent(protocol, script.content, context.model), synthesizer, encrypted);
  const finishReason: FinishReason = hasToolCall(script) ? 'tool-call' : 'completed';
  const usage = scriptUsage(script);
  const response: CanonicalResponse = {
    requestId: createRequestId(),
    model: context.model,
    provider: protocol,
    content,
    finishReason,
    usage,
    latencyMs: 0,
  };
  const codec = codecOf(protocol);
  if (!isStreamingRequest(protocol, request))
    return createJsonPlan(200, codec.encodeResponse(response, context), synthesizer.headers());
  const encoder = codec.createStreamEncoder(context);
  const events: StreamEvent[] = [
    { type: 'message-start', requestId: response.requestId, model: context.model, provider: protocol },
    { type: 'usage', usage },
    ...content.flatMap((part, index) => partEvents(part, index, script.chunkSize)),
    { type: 'finish', response },
  ];
  const frames = events.flatMap((event) => encoder.event(event));
  if (isJsonArrayStream(protocol, request))
    return createJsonArrayPlan(frames.map(frameData), 200, synthesizer.headers());
  if (emulatorProtocols[protocol].eventStream === 'chunk')
    return createEventStreamPlan(toChunkFrames(frames), 200, synthesizer.headers());
  return createStreamPlan(frames, 200, synthesizer.headers());
}
