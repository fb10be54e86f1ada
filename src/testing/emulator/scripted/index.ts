/** Dispatches a scripted response to the synthesizer of the request's protocol. */
import {
  createEventStreamPlan,
  createJsonArrayPlan,
  createJsonPlan,
  createStreamPlan,
  type ResponsePlan,
  type WireFrame,
} from '../frames.ts';
import { createAnthropicRequestId, randomToken } from '../ids.ts';
import {
  bodyField,
  isJsonArrayStream,
  isStreamingRequest,
  requestedModel,
  wantsStreamUsage,
} from '../routing.ts';
import type { EmulatorApi, RecordedRequest, ScriptedScript } from '../types.ts';
import { createAnthropicFrames, createAnthropicMessage } from './anthropic.ts';
import { createConverseBody, createConverseFrames, createInvokeFrames } from './bedrock.ts';
import { createGeminiFrames, createGeminiResponse } from './gemini.ts';
import { createChatCompletion, createChatCompletionFrames } from './openai-chat.ts';
import { createResponsesBody, createResponsesFrames } from './openai-responses.ts';
import type { ScriptContext } from './shared.ts';
import { emulatorProtocols } from '../protocols.ts';

interface Synthesizer {
  defaultModel: string;
  createBody(script: ScriptedScript, context: ScriptContext): object;
  createFrames(script: ScriptedScript, context: ScriptContext): WireFrame[];
  headers(): Record<string, string>;
  /** What the request adds to the script's context (Responses: state and reasoning options). */
  context?(request: RecordedRequest): Partial<ScriptContext>;
}

const openaiHeaders = () => ({ 'x-request-id': `req_${randomToken(32, '0123456789abcdef')}` });

const synthesizers: Record<EmulatorApi, Synthesizer> = {
  'anthropic-messages': {
    defaultModel: 'claude-sonnet-4-5-20250929',
    createBody: createAnthropicMessage,
    createFrames: createAnthropicFrames,
    headers: () => ({ 'request-id': createAnthropicRequestId() }),
  },
  'openai-chat': {
    defaultModel: 'gpt-4.1-nano-2025-04-14',
    createBody: createChatCompletion,
    createFrames: createChatCompletionFrames,
    headers: openaiHeaders,
  },
  'openai-responses': {
    defaultModel: 'gpt-5-mini-2025-08-07',
    createBody: createResponsesBody,
    createFrames: createResponsesFrames,
    headers: openaiHeaders,
    context: responsesContext,
  },
  gemini: {
    defaultModel: 'gemini-2.5-flash',
    createBody: createGeminiResponse,
    createFrames: createGeminiFrames,
    headers: () => ({}),
  },
  'bedrock-converse': {
    defaultModel: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
    createBody: createConverseBody,
    createFrames: createConverseFrames,
    headers: bedrockHeaders,
  },
  'bedrock-invoke': {
    defaultModel: 'claude-sonnet-4-5-20250929',
    createBody: createAnthropicMessage,
    createFrames: createInvokeFrames,
    headers: bedrockHeaders,
  },
  'vertex-anthropic': {
    defaultModel: 'claude-sonnet-4-5@20250929',
    createBody: createAnthropicMessage,
    createFrames: createAnthropicFrames,
    headers: () => ({}),
  },
};

function bedrockHeaders(): Record<string, string> {
  const hex = () => randomToken(8, '0123456789abcdef');
  return {
    'x-amzn-requestid': `${hex()}-${hex().slice(0, 4)}-4${hex().slice(0, 3)}-8${hex().slice(0, 3)}-${hex()}${hex().slice(0, 4)}`,
  };
}

/** What a Responses request says about state and reasoning. */
function responsesContext(request: RecordedRequest): Partial<ScriptContext> {
  const include = bodyField(request.body, 'include');
  const previous = bodyField(request.body, 'previous_response_id');
  const context: Partial<ScriptContext> = {
    encryptedReasoning: Array.isArray(include) && include.includes('reasoning.encrypted_content'),
    store: bodyField(request.body, 'store') !== false,
  };
  if (typeof previous === 'string') context.previousResponseId = previous;
  return context;
}

function frameData(frame: WireFrame): string {
  return 'raw' in frame ? frame.raw : frame.data;
}

/**
 * Builds the plan for a scripted response: JSON for plain requests, the protocol's SSE sequence for
 * streams, or the same chunks as a streamed JSON array for Gemini streams without `alt=sse`.
 */
export function createScriptedPlan(
  script: ScriptedScript,
  api: EmulatorApi,
  request: RecordedRequest,
): ResponsePlan {
  const synthesizer = synthesizers[api];
  const context: ScriptContext = {
    model: script.model ?? requestedModel(request) ?? synthesizer.defaultModel,
    streamUsage: wantsStreamUsage(request),
    ...synthesizer.context?.(request),
  };
  if (isJsonArrayStream(api, request)) {
    const items = synthesizer.createFrames(script, context).map(frameData);
    return createJsonArrayPlan(items, 200, synthesizer.headers());
  }
  if (isStreamingRequest(api, request)) {
    const frames = synthesizer.createFrames(script, context);
    return emulatorProtocols[api].eventStream !== undefined
      ? createEventStreamPlan(frames, 200, synthesizer.headers())
      : createStreamPlan(frames, 200, synthesizer.headers());
  }
  return createJsonPlan(200, synthesizer.createBody(script, context), synthesizer.headers());
}
