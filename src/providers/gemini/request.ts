/** Canonical request → Gemini `generateContent` body and path. */
import { encodePathSegments } from '../../core/model-name.ts';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import type { CanonicalRequest, ReasoningEffort, ReasoningRequest } from '../../core/request.ts';
import type { ToolChoice, ToolSpec } from '../../core/tools.ts';
import type { ProviderContext, WireRequest } from '../common/definition.ts';
import type { GeminiContent, GeminiFunctionDeclaration, GeminiRequestBody } from './api.ts';
import {
  type AnswerFunction,
  answerDeclaration,
  answerFunctionFor,
  answerToolConfig,
  rememberAnswerFunction,
} from './answer-function.ts';
import { leastThinkingFor } from './capabilities.ts';
import { convertMessages } from './messages.ts';
import { readProviderOptions } from './options.ts';
import { convertSchema, hasNoParameters, jsonSchemaForGemini, takesJsonSchema } from './schema.ts';
import { hasDefaultOutputLimit } from '../common/routed.ts';
import { stopSequencesWithin } from '../common/stop-sequences.ts';
import { sendEnumAsText } from '../common/output-text.ts';
import { rememberSerialCalls } from './serial-calls.ts';
import { pushAll } from '../../core/arrays.ts';

/** What `prepare` worked out for one call; `buildRequest` and the parsers read it. */
export interface PreparedCall {
  converted: ConvertedRequest;
  /** The cache entry the call uses and how many leading contents it holds. */
  cache?: { name: string; contentCount: number; created: boolean; tokens?: number };
}

export { convertMessages } from './messages.ts';

/** How schemas are sent (see `GeminiOptions.useJsonSchema`; `'auto'`: by model). */
export interface RequestSettings {
  useJsonSchema: boolean | 'auto';
}

/** The parts of a request an explicit cache can hold, plus the contents. */
export interface ConvertedRequest {
  systemInstruction: GeminiRequestBody['systemInstruction'];
  tools: JsonObject[] | undefined;
  toolConfig: GeminiRequestBody['toolConfig'];
  contents: GeminiContent[];
  /** The function the structured answer is asked for through, when JSON mode cannot go with the tools. */
  answer?: AnswerFunction;
}

/** Converts what does not depend on caching: instructions, contents, tools and tool config. */
export function convertRequest(
  request: CanonicalRequest,
  context: ProviderContext,
  settings: RequestSettings,
): ConvertedRequest {
  const { systemInstruction, contents } = convertMessages(request.transcript, context);
  const useJsonSchema = takesJsonSchema(settings.useJsonSchema, context.model);
  const declarations = convertTools(request.tools ?? [], { useJsonSchema });
  const extraTools = readProviderOptions(request).tools ?? [];
  const answer = answerFunctionFor(request, context, functionNames(declarations, extraTools));
  if (answer !== undefined) declarations.push(answerDeclaration(answer, request, useJsonSchema));
  const tools: JsonObject[] = [];
  if (declarations.length > 0) tools.push({ functionDeclarations: declarations as unknown as JsonObject[] });
  pushAll(tools, extraTools);
  const toolConfig =
    answer !== undefined
      ? answerToolConfig(answer, request)
      : declarations.length > 0
        ? convertToolChoice(request.toolChoice, readProviderOptions(request).functionCallingMode)
        : undefined;
  return {
    systemInstruction: systemInstruction === undefined ? undefined : { parts: [{ text: systemInstruction }] },
    tools: tools.length > 0 ? tools : undefined,
    toolConfig,
    contents,
    ...(answer === undefined ? {} : { answer }),
  };
}

/** The function names a request declares: its tools' and those of `functionDeclarations` passed in provider options. */
function functionNames(
  declarations: readonly GeminiFunctionDeclaration[],
  extraTools: readonly JsonObject[],
): string[] {
  const names = declarations.map((declaration) => declaration.name);
  for (const tool of extraTools) {
    if (!Array.isArray(tool.functionDeclarations)) continue;
    for (const declaration of tool.functionDeclarations)
      if (isJsonObject(declaration) && typeof declaration.name === 'string') names.push(declaration.name);
  }
  return names;
}

/**
 * Body fields no pass-through option sets (`common/pass-through.ts`): the model, the contents (the
 * model and streaming are also in the path). `providerOptions.gemini` has no body of its own;
 * Vertex's `providerOptions.vertex.body` is checked against these.
 */
export const callFields = ['model', 'contents'] as const;

/**
 * Builds `POST /models/{model}:generateContent` (or `:streamGenerateContent?alt=sse`). When the
 * `prepare` hook found or created a cache entry, the cached prefix (system instruction, tools, tool
 * config, early contents) is left out and `cachedContent` names the entry instead.
 */
export function buildRequest(
  request: CanonicalRequest,
  context: ProviderContext,
  settings: RequestSettings,
  prepared?: PreparedCall,
): WireRequest {
  const converted = prepared?.converted ?? convertRequest(request, context, settings);
  rememberAnswerFunction(context, converted.answer);
  // Gemini has no parallel-calls setting: the reply keeps its first call (serial-calls.ts).
  rememberSerialCalls(request, context);
  const body: GeminiRequestBody = { contents: converted.contents };
  if (prepared?.cache !== undefined) {
    body.contents = converted.contents.slice(prepared.cache.contentCount);
    body.cachedContent = prepared.cache.name;
  } else {
    if (converted.systemInstruction !== undefined) body.systemInstruction = converted.systemInstruction;
    if (converted.tools !== undefined) body.tools = converted.tools;
    if (converted.toolConfig !== undefined) body.toolConfig = converted.toolConfig;
  }
  const providerOptions = readProviderOptions(request);
  if (providerOptions.safetySettings !== undefined) body.safetySettings = providerOptions.safetySettings;
  body.generationConfig = {
    ...buildGenerationConfig(request, context, settings, converted.answer !== undefined),
    ...providerOptions.generationConfig,
  };
  const method = context.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return { path: `/${modelPath(context.model)}:${method}`, body: body as unknown as JsonObject };
}

/** `models/{name}`; names that already hold a collection (`tunedModels/…`, `models/…`) are kept. */
export function modelPath(model: string): string {
  // Each segment percent-encoded: the adapter checked the name's grammar, this is the second wall.
  return encodePathSegments(model.includes('/') ? model : `models/${model}`);
}

/** Canonical tools → Gemini function declarations. */
export function convertTools(
  tools: readonly ToolSpec[],
  settings: RequestSettings,
): GeminiFunctionDeclaration[] {
  return tools.map((tool) => {
    const declaration: GeminiFunctionDeclaration = { name: tool.name };
    if (tool.description !== undefined) declaration.description = tool.description;
    if (hasNoParameters(tool.inputSchema)) return declaration;
    if (settings.useJsonSchema === true)
      declaration.parametersJsonSchema = jsonSchemaForGemini(tool.inputSchema);
    else declaration.parameters = convertSchema(tool.inputSchema, { where: `tool ${tool.name} parameters` });
    return declaration;
  });
}

/**
 * auto/none/required → AUTO/NONE/ANY; a named tool → ANY restricted to that function. `auto` is
 * `VALIDATED` when the provider options ask for it (a Gemini client's own mode).
 */
export function convertToolChoice(
  choice: ToolChoice | undefined,
  autoMode: 'VALIDATED' | undefined = undefined,
): GeminiRequestBody['toolConfig'] {
  if (choice === undefined) return undefined;
  if (choice === 'auto') return { functionCallingConfig: { mode: autoMode ?? 'AUTO' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
}

/** The most stop sequences `generationConfig` takes ("up to 5"). */
const maxStopSequences = 5;

/** `answerByFunction`: the structured answer is asked for through the answer function, not JSON mode. */
function buildGenerationConfig(
  request: CanonicalRequest,
  context: ProviderContext,
  settings: RequestSettings,
  answerByFunction: boolean,
): JsonObject {
  const { model } = context;
  // A limit the router chose is the model's own: the API's default, left to it.
  const config: JsonObject = hasDefaultOutputLimit(request)
    ? {}
    : { maxOutputTokens: request.maxOutputTokens };
  const stops = stopSequencesWithin(request, maxStopSequences, context);
  if (stops !== undefined) config.stopSequences = stops;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.topK !== undefined) config.topK = request.topK;
  if (request.outputSchema?.format === 'enum' && !answerByFunction) {
    // Enum output, the bare value: the schema in the OpenAPI form Gemini's enum examples use.
    config.responseMimeType = 'text/x.enum';
    config.responseSchema = convertSchema(request.outputSchema.schema, { where: 'output schema' });
    sendEnumAsText(context);
  } else if (request.outputSchema !== undefined && !answerByFunction) {
    config.responseMimeType = 'application/json';
    if (takesJsonSchema(settings.useJsonSchema, model))
      config.responseJsonSchema = jsonSchemaForGemini(request.outputSchema.schema);
    else config.responseSchema = convertSchema(request.outputSchema.schema, { where: 'output schema' });
  }
  if (request.reasoning?.effort === 'none') {
    const off = reasoningOff(context);
    if (off !== undefined) config.thinkingConfig = off;
  } else if (request.reasoning !== undefined)
    config.thinkingConfig = convertReasoning(request.reasoning, model, context);
  return config;
}

/**
 * Reasoning off (effort `none`) → the model's least thinking (`leastThinking`): `thinkingBudget: 0`
 * where that turns thinking off (2.5 Flash, Flash-Lite); else the lowest budget or level the model
 * takes, with a WARN, since it thinks anyway; nothing for a model that does not think.
 */
function reasoningOff(context: ProviderContext): JsonObject | undefined {
  const least = leastThinkingFor(context.model);
  if (least === undefined) return undefined;
  if (!('thinkingBudget' in least && least.thinkingBudget === 0))
    context.warn('sent the least thinking the model takes: it cannot turn thinking off', {
      model: context.model,
      requested: 'none',
      sent: 'thinkingBudget' in least ? least.thinkingBudget : least.thinkingLevel,
    });
  return { ...least };
}

/**
 * Reasoning → `thinkingConfig`. Gemini 3 takes a `thinkingLevel` (Pro: low/high; Flash: also
 * minimal/medium; `xhigh` is `high`), older models a `thinkingBudget`; an explicit budget is always sent as a budget,
 * and never together with a level (the API rejects both). `includeThoughts` defaults to true so the
 * thought summaries (and their signatures) come back — false for an effort without thinking
 * (`thinking: false`, which Gemini's level or budget still serves: its effort is thinking effort).
 */
export function convertReasoning(
  reasoning: ReasoningRequest,
  model: string,
  context?: Pick<ProviderContext, 'warn'>,
): JsonObject {
  const config: JsonObject = { includeThoughts: reasoning.includeThoughts ?? reasoning.thinking !== false };
  if (reasoning.budgetTokens !== undefined) {
    config.thinkingBudget = withinLargestBudget(reasoning.budgetTokens, model, context);
    return config;
  }
  const effort = reasoning.effort;
  if (effort === undefined || effort === 'none') return config;
  if (/gemini-3/.test(model)) {
    config.thinkingLevel = thinkingLevel(effort, model);
  } else {
    config.thinkingBudget = thinkingBudget(effort, model);
  }
  return config;
}

function thinkingLevel(effort: ReasoningEffort, model: string): string {
  // `high` is the most there is: `xhigh` and `max` are high.
  if (model.includes('flash')) return effort === 'xhigh' || effort === 'max' ? 'high' : effort;
  // Gemini 3 Pro has two levels only.
  return effort === 'minimal' || effort === 'low' ? 'low' : 'high';
}

/**
 * An explicit budget over a 2.5 model's largest (a budget written for Claude, up to its output
 * limit): the largest, with a WARN — Gemini refuses a budget out of its range with a 400. Gemini 3
 * (levels) and unknown models get the budget as asked.
 */
function withinLargestBudget(budget: number, model: string, context?: Pick<ProviderContext, 'warn'>): number {
  if (!/gemini-2\.5/.test(model)) return budget;
  const largest = thinkingBudget('high', model);
  if (budget <= largest) return budget;
  context?.warn('lowered the thinking budget to the largest the model takes', {
    model,
    requested: budget,
    sent: largest,
  });
  return largest;
}

function thinkingBudget(effort: ReasoningEffort, model: string): number {
  const pro = model.includes('pro');
  switch (effort) {
    case 'minimal': {
      const least = leastThinkingFor(model);
      return least !== undefined && 'thinkingBudget' in least ? least.thinkingBudget : 0;
    }
    case 'low':
      return 1024;
    case 'medium':
      return 8192;
    // High is already the model's largest budget (2.5 Pro 32,768, Flash 24,576): xhigh and max are the same.
    case 'high':
    case 'xhigh':
    case 'max':
      return pro ? 32_768 : 24_576;
  }
}
