/** Canonical request → Gemini `generateContent` body and path. */
import { encodePathSegments } from '../../core/model-name.ts';
import type { JsonObject } from '../../core/json.ts';
import type { CanonicalRequest, ReasoningRequest } from '../../core/request.ts';
import type { ToolChoice, ToolSpec } from '../../core/tools.ts';
import type { ProviderContext, WireRequest } from '../common/definition.ts';
import type { GeminiContent, GeminiFunctionDeclaration, GeminiRequestBody } from './api.ts';
import { convertMessages } from './messages.ts';
import { readProviderOptions } from './options.ts';
import { convertSchema, hasNoParameters, jsonSchemaForGemini, takesJsonSchema } from './schema.ts';
import { hasDefaultOutputLimit } from '../common/routed.ts';
import { stopSequencesWithin } from '../common/stop-sequences.ts';
import { warnSerialCallsUnenforced } from '../common/tool-settings.ts';

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
}

/** Converts what does not depend on caching: instructions, contents, tools and tool config. */
export function convertRequest(
  request: CanonicalRequest,
  context: ProviderContext,
  settings: RequestSettings,
): ConvertedRequest {
  const { systemInstruction, contents } = convertMessages(request.transcript, context);
  const declarations = convertTools(request.tools ?? [], {
    useJsonSchema: takesJsonSchema(settings.useJsonSchema, context.model),
  });
  const extraTools = readProviderOptions(request).tools ?? [];
  warnSerialCallsUnenforced(request, context);
  const tools: JsonObject[] = [];
  if (declarations.length > 0) tools.push({ functionDeclarations: declarations as unknown as JsonObject[] });
  tools.push(...extraTools);
  return {
    systemInstruction: systemInstruction === undefined ? undefined : { parts: [{ text: systemInstruction }] },
    tools: tools.length > 0 ? tools : undefined,
    toolConfig: declarations.length > 0 ? convertToolChoice(request.toolChoice) : undefined,
    contents,
  };
}

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
    ...buildGenerationConfig(request, context, settings),
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

/** auto/none/required → AUTO/NONE/ANY; a named tool → ANY restricted to that function. */
export function convertToolChoice(choice: ToolChoice | undefined): GeminiRequestBody['toolConfig'] {
  if (choice === undefined) return undefined;
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
}

/** The most stop sequences `generationConfig` takes ("up to 5"). */
const maxStopSequences = 5;

function buildGenerationConfig(
  request: CanonicalRequest,
  context: ProviderContext,
  settings: RequestSettings,
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
  if (request.outputSchema !== undefined) {
    config.responseMimeType = 'application/json';
    if (takesJsonSchema(settings.useJsonSchema, model))
      config.responseJsonSchema = jsonSchemaForGemini(request.outputSchema.schema);
    else config.responseSchema = convertSchema(request.outputSchema.schema, { where: 'output schema' });
  }
  if (request.reasoning !== undefined) config.thinkingConfig = convertReasoning(request.reasoning, model);
  return config;
}

/**
 * Reasoning → `thinkingConfig`. Gemini 3 takes a `thinkingLevel` (Pro: low/high; Flash: also
 * minimal/medium), older models a `thinkingBudget`; an explicit budget is always sent as a budget,
 * and never together with a level (the API rejects both). `includeThoughts` defaults to true so the
 * thought summaries (and their signatures) come back.
 */
export function convertReasoning(reasoning: ReasoningRequest, model: string): JsonObject {
  const config: JsonObject = { includeThoughts: reasoning.includeThoughts ?? true };
  if (reasoning.budgetTokens !== undefined) {
    config.thinkingBudget = reasoning.budgetTokens;
    return config;
  }
  if (reasoning.effort === undefined) return config;
  if (/gemini-3/.test(model)) {
    config.thinkingLevel = thinkingLevel(reasoning.effort, model);
  } else {
    config.thinkingBudget = thinkingBudget(reasoning.effort, model);
  }
  return config;
}

function thinkingLevel(effort: NonNullable<ReasoningRequest['effort']>, model: string): string {
  if (model.includes('flash')) return effort;
  // Gemini 3 Pro has two levels only.
  return effort === 'minimal' || effort === 'low' ? 'low' : 'high';
}

function thinkingBudget(effort: NonNullable<ReasoningRequest['effort']>, model: string): number {
  const pro = model.includes('pro');
  switch (effort) {
    case 'minimal':
      return pro ? 128 : 0; // 2.5 Pro cannot turn thinking off; 128 is its floor.
    case 'low':
      return 1024;
    case 'medium':
      return 8192;
    case 'high':
      return pro ? 32_768 : 24_576;
  }
}
