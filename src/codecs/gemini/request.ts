/** Decodes a Gemini `generateContent` / `streamGenerateContent` request into the canonical request. */
import { textSignatureKey } from './response.ts';
import { clientSchema, isObjectRoot, nullableRoot } from './schema.ts';
import { isEnumSchema, type OutputSchema, type ReasoningRequest } from '../../core/request.ts';
import type { ToolChoice, ToolSpec } from '../../core/tools.ts';
import type { Item, Part, ToolOutput } from '../../core/transcript.ts';
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
  namedTool,
  pushParts,
  sentAt,
  toolOutput,
  userTurnParts,
  withImageDetail,
} from '../common.ts';
import type { DecodeContext, DecodedRequest, OpaqueCodec } from '../types.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import { CallIds } from './call-ids.ts';
import { geminiDisplayNameKey, geminiNoMimeTypeKey, geminiResponseObjectKey } from '../../core/metadata.ts';

interface PartContext {
  path: string;
  content: number;
  part: number;
  ids: CallIds;
  opaque: OpaqueCodec;
}

function convertPart(
  value: unknown,
  context: PartContext,
): { kind: 'user' | 'assistant' | 'tool'; part: Part } | undefined {
  const { path } = context;
  const part = jsonObject(value, path);
  const signature = optionalString(part, 'thoughtSignature', `${path}.thoughtSignature`);
  const payload = signature === undefined ? {} : context.opaque.unwrap(signature);
  if (typeof part.text === 'string') {
    if (part.thought === true)
      return { kind: 'assistant', part: { type: 'reasoning', text: part.text, ...payload } };
    // Gemini signs some text parts; the signature goes back in the part's metadata, as the Gemini
    // adapter keeps it (a signature alone, on an empty part, signs the text before it).
    const metadata =
      typeof payload.signature === 'string' ? { [textSignatureKey]: payload.signature } : undefined;
    if (part.text === '')
      return metadata === undefined
        ? undefined
        : { kind: 'user', part: { type: 'text', text: '', metadata } };
    return { kind: 'user', part: { type: 'text', text: part.text, ...(metadata ? { metadata } : {}) } };
  }
  const media = mediaSettings(part, mediaOf(part, path), path);
  // A model's own media output carries its signature back as a text part's does (the adapter's key).
  if (media !== undefined && typeof payload.signature === 'string')
    media.metadata = { [textSignatureKey]: payload.signature };
  if (media !== undefined) return { kind: 'user', part: media };
  if (isJsonObject(part.functionCall)) {
    const call = part.functionCall;
    const name = requiredString(call, 'name', `${path}.functionCall.name`);
    const id = context.ids.issue(
      optionalString(call, 'id', `${path}.functionCall.id`),
      name,
      context.content,
      context.part,
    );
    const input = jsonObject(call.args ?? {}, `${path}.functionCall.args`);
    const decoded: Part = { type: 'tool-call', id: id as never, name, input, ...payload };
    return { kind: 'assistant', part: sentAt(decoded, `${path}.functionCall`) };
  }
  if (isJsonObject(part.functionResponse)) {
    const response = part.functionResponse;
    const name = requiredString(response, 'name', `${path}.functionResponse.name`);
    const given = optionalString(response, 'id', `${path}.functionResponse.id`);
    const callId = context.ids.answer(given, name);
    if (callId === undefined)
      throw new RequestFieldError(
        `${path}.functionResponse`,
        `${path}.functionResponse answers no earlier functionCall named '${shown(name)}' that is still unanswered`,
      );
    // Gemini's convention: `{output: …}` for a result, `{error: …}` for a failure; any other object
    // is the result itself (JSON, passed on as JSON, not as a string of it).
    const result = response.response ?? {};
    const single = isJsonObject(result) && Object.keys(result).length === 1;
    const isError = single && Object.hasOwn(result, 'error');
    const value = single && (isError || Object.hasOwn(result, 'output')) ? Object.values(result)[0] : result;
    // Multimodal function responses: media beside the JSON response, kept as parts of the output.
    const media = (optionalArray(response, 'parts', `${path}.functionResponse.parts`) ?? []).map(
      (entry, index) => responseMedia(entry, `${path}.functionResponse.parts.${index}`),
    );
    // With media, a JSON result stays JSON: a structured part before them (an upstream without JSON
    // results gets it as JSON text, as the json output); the response object as written is marked
    // so, as a Gemini upstream gets it back unchanged (`geminiResponseObjectKey`).
    const structured: Part = { type: 'structured', value: (value ?? {}) as JsonValue };
    if (value === result && isJsonObject(value)) structured.metadata = { [geminiResponseObjectKey]: true };
    const output: ToolOutput =
      typeof value === 'string'
        ? toolOutput([{ type: 'text', text: value }, ...media])
        : media.length > 0
          ? { type: 'parts', parts: [structured, ...media] }
          : { type: 'json', value: value as JsonValue };
    const answer: Part = { type: 'tool-result', callId: callId as never, name, output, isError };
    return { kind: 'tool', part: sentAt(answer, `${path}.functionResponse`) };
  }
  throw new RequestFieldError(path, `${path}: part kind is not supported by the gateway`, 'unsupported');
}

/** A part's `mediaResolution.level` as the canonical image detail: the levels both sides have. */
const partResolutions: Readonly<Record<string, string>> = {
  MEDIA_RESOLUTION_LOW: 'low',
  MEDIA_RESOLUTION_HIGH: 'high',
};

/**
 * A media part's own settings: `mediaResolution.level` `LOW` or `HIGH` is its image detail, as a
 * Chat client's `image_url.detail` (a Gemini 3 upstream gets it back as the part's
 * `mediaResolution`); another level and `numTokens` are left to the model. `videoMetadata` (a clip
 * of the video, its frame rate) and `mediaProcessing` change what the model sees and have no
 * canonical place: a 400 naming them, not the whole video answered about.
 */
function mediaSettings(
  part: Record<string, unknown>,
  media: Part | undefined,
  path: string,
): Part | undefined {
  for (const key of ['videoMetadata', 'mediaProcessing'])
    if (part[key] !== undefined && part[key] !== null)
      throw new RequestFieldError(
        `${path}.${key}`,
        `${path}.${key}: per-part video settings are not supported by the gateway`,
        'unsupported',
      );
  if (media === undefined || !isJsonObject(part.mediaResolution)) return media;
  const level = part.mediaResolution.level;
  const detail = typeof level === 'string' ? partResolutions[level] : undefined;
  return detail === undefined ? media : withImageDetail(media, detail, `${path}.mediaResolution.level`);
}

/** A part's `inlineData` or `fileData` as a media or file part noted as sent at `path`; undefined for other kinds. */
function mediaOf(part: Record<string, unknown>, path: string): Part | undefined {
  if (isJsonObject(part.inlineData)) {
    const data = part.inlineData;
    const mime = requiredString(data, 'mimeType', `${path}.inlineData.mimeType`);
    return sentAt(
      binaryPart(mime, { base64: requiredString(data, 'data', `${path}.inlineData.data`) }),
      path,
    );
  }
  if (isJsonObject(part.fileData)) {
    const data = part.fileData;
    const uri = requiredString(data, 'fileUri', `${path}.fileData.fileUri`);
    const mime = optionalString(data, 'mimeType', `${path}.fileData.mimeType`);
    if (mime !== undefined) return sentAt(binaryPart(mime, { uri }), path);
    // The API's mimeType is optional: a YouTube URL goes without one (Gemini tells it is a video).
    if (!isYouTubeUrl(uri))
      throw new RequestFieldError(
        `${path}.fileData.mimeType`,
        `${path}.fileData.mimeType is required but for a YouTube URL`,
      );
    const video: Part = {
      type: 'media',
      modality: 'video',
      mimeType: 'video/*',
      data: { type: 'uri', uri },
      metadata: { [geminiNoMimeTypeKey]: true },
    };
    return sentAt(video, path);
  }
  return undefined;
}

/** A YouTube video's URL (`youtube.com/watch?v=…`, `youtu.be/…`, any subdomain of youtube.com). */
function isYouTubeUrl(uri: string): boolean {
  if (!/^https?:/i.test(uri)) return false;
  try {
    const host = new URL(uri).hostname.toLowerCase();
    return host === 'youtu.be' || host === 'youtube.com' || host.endsWith('.youtube.com');
  } catch {
    return false;
  }
}

/**
 * One media part of a function response (`inlineData` or `fileData`), its `displayName` — the name
 * the response object refers to it by (`{"$ref": name}`) — kept in its metadata
 * ({@link geminiDisplayNameKey}); anything else is refused by path.
 */
function responseMedia(value: unknown, path: string): Part {
  const part = jsonObject(value, path);
  const media = mediaOf(part, path);
  if (media !== undefined) {
    const field = isJsonObject(part.inlineData) ? 'inlineData' : 'fileData';
    const name = optionalString(part[field] as JsonObject, 'displayName', `${path}.${field}.displayName`);
    if (name !== undefined) media.metadata = { ...media.metadata, [geminiDisplayNameKey]: name };
    return media;
  }
  throw new RequestFieldError(
    path,
    `${path}: only inlineData and fileData parts are supported here`,
    'unsupported',
  );
}

/**
 * A thought streamed in fragments comes back as several `thought: true` parts — in one content, or
 * one content per chunk (the SDK's chat history) — and only the last carries the signature: the
 * fragments are one reasoning part, signed by the last (a signature over the last fragment alone
 * would be refused by the model that made it). True when `part` was joined to the fragment before.
 */
/**
 * A signature-only text part (`{text: '', thoughtSignature}`, as the gateway streams one) signs the
 * assistant text before it: true when it was given to that part (or had none to go to).
 */
function joinsSignature(transcript: Item[], kind: Item['kind'], part: Part): boolean {
  if (part.type !== 'text' || part.text !== '') return false;
  const last = transcript.at(-1);
  const previous = last?.kind === kind && kind === 'assistant' ? last.parts.at(-1) : undefined;
  if (previous?.type === 'text')
    last!.parts[last!.parts.length - 1] = {
      ...previous,
      metadata: { ...previous.metadata, ...part.metadata },
    };
  return true;
}

function joinsThought(transcript: Item[], kind: Item['kind'], part: Part): boolean {
  if (kind !== 'assistant' || part.type !== 'reasoning') return false;
  const last = transcript.at(-1);
  const previous = last?.kind === 'assistant' ? last.parts.at(-1) : undefined;
  if (previous?.type !== 'reasoning' || previous.signature !== undefined || previous.data !== undefined)
    return false;
  last!.parts[last!.parts.length - 1] = { ...previous, ...part, text: previous.text + part.text };
  return true;
}

function convertContents(contents: unknown[], transcript: Item[], opaque: OpaqueCodec): void {
  const ids = new CallIds();
  contents.forEach((content, contentIndex) => {
    const path = `contents.${contentIndex}`;
    const object = jsonObject(content, path);
    const parts = optionalArray(object, 'parts', `${path}.parts`) ?? [];
    const { role } = object;
    // Unset may also be an empty string (proto-style clients); `function` is the older API's role for responses.
    if (
      role !== undefined &&
      role !== null &&
      role !== '' &&
      role !== 'user' &&
      role !== 'model' &&
      role !== 'function'
    )
      throw new RequestFieldError(`${path}.role`, `${path}.role must be 'user' or 'model'`);
    const model = role === 'model';
    // What of this content reaches the transcript, to tell a user content that says nothing.
    const kept: Part[] = [];
    parts.forEach((value, partIndex) => {
      const converted = convertPart(value, {
        path: `${path}.parts.${partIndex}`,
        content: contentIndex,
        part: partIndex,
        ids,
        opaque,
      });
      if (converted === undefined) return;
      const kind = model && converted.kind === 'user' ? 'assistant' : converted.kind;
      // Only the model's own text carries a signature back.
      if (kind === 'user' && converted.part.type === 'text' && converted.part.metadata !== undefined) {
        if (converted.part.text === '') return;
        converted.part = { type: 'text', text: converted.part.text };
      }
      if (joinsThought(transcript, kind, converted.part)) kept.push(converted.part);
      else if (!joinsSignature(transcript, kind, converted.part)) {
        kept.push(converted.part);
        pushParts(transcript, kind, [converted.part]);
      }
    });
    // A user content that says nothing — empty text only (`{text: ''}`, also with `thought: false`
    // or a signature, which a user's text does not keep), or no parts, both of which Gemini refuses —
    // is an empty turn, kept; one of whitespace-only text is noted as sent at its parts
    // (`userTurnParts`), so a refusal names the client's content.
    if (!model && role !== 'function')
      if (kept.length === 0) pushParts(transcript, 'user', userTurnParts([], `${path}.parts`));
      else userTurnParts(kept, `${path}.parts`);
  });
}

function convertTools(body: Record<string, unknown>): ToolSpec[] | undefined {
  const tools = optionalArray(body, 'tools');
  if (tools === undefined) return undefined;
  return tools.flatMap((tool, index) => {
    const object = jsonObject(tool, `tools.${index}`);
    const other = Object.keys(object).find((key) => key !== 'functionDeclarations');
    if (other !== undefined)
      throw new RequestFieldError(
        `tools.${index}.${shown(other)}`,
        `tool '${shown(other)}' is not supported by the gateway`,
        'unsupported',
      );
    const declarations =
      optionalArray(object, 'functionDeclarations', `tools.${index}.functionDeclarations`) ?? [];
    return declarations.map((declaration, at) => {
      const path = `tools.${index}.functionDeclarations.${at}`;
      const fn = jsonObject(declaration, path);
      const schema = clientSchema(fn.parametersJsonSchema, fn.parameters, {
        jsonSchema: `${path}.parametersJsonSchema`,
        openApi: `${path}.parameters`,
      });
      const spec: ToolSpec = {
        name: requiredString(fn, 'name', `${path}.name`),
        inputSchema: (schema ?? { type: 'object', properties: {} }) as never,
      };
      const description = optionalString(fn, 'description', `${path}.description`);
      if (description !== undefined) spec.description = description;
      return spec;
    });
  });
}

const functionCallingModes = new Set(['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED']);

function callingConfig(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const config = isJsonObject(body.toolConfig) ? body.toolConfig.functionCallingConfig : undefined;
  return isJsonObject(config) ? config : undefined;
}

function convertToolChoice(body: Record<string, unknown>): ToolChoice | undefined {
  const config = callingConfig(body);
  if (config === undefined) return undefined;
  const names = Array.isArray(config.allowedFunctionNames) ? config.allowedFunctionNames : [];
  const { mode } = config;
  if (mode !== undefined && mode !== null && !functionCallingModes.has(mode as string))
    throw new RequestFieldError(
      'toolConfig.functionCallingConfig.mode',
      'toolConfig.functionCallingConfig.mode must be AUTO, ANY, NONE or VALIDATED',
    );
  // The API takes allowedFunctionNames only with ANY or VALIDATED, and refuses them beside AUTO
  // (or no mode, AUTO's default): offering all the tools would drop the restriction silently.
  if (names.length > 0 && config.mode !== 'ANY' && config.mode !== 'VALIDATED')
    throw new RequestFieldError(
      'toolConfig.functionCallingConfig.allowedFunctionNames',
      'toolConfig.functionCallingConfig.allowedFunctionNames should only be set when the mode is ANY or VALIDATED',
    );
  if (config.mode === 'NONE') return 'none';
  // VALIDATED lets the model answer in text too: a choice of `auto` over the allowed tools, each
  // strict (`decodeRequest`); a Gemini upstream gets VALIDATED itself (`geminiOptions`).
  if (config.mode === 'VALIDATED') return 'auto';
  if (config.mode === 'ANY')
    return names.length === 1
      ? namedTool(names[0], 'toolConfig.functionCallingConfig.allowedFunctionNames.0')
      : 'required';
  return config.mode === 'AUTO' ? 'auto' : undefined;
}

/**
 * `ANY` with several `allowedFunctionNames`: the model must call one of those. No other protocol
 * names a subset, so the request offers only those tools (with `required`); unknown names are a 400.
 */
function allowedTools(body: Record<string, unknown>, tools: ToolSpec[]): ToolSpec[] {
  const field = 'toolConfig.functionCallingConfig.allowedFunctionNames';
  const names = callingConfig(body)?.allowedFunctionNames;
  if (names === undefined || names === null) return tools;
  if (!Array.isArray(names)) throw new RequestFieldError(field, `${field} must be an array of names`);
  if (names.length === 0) return tools;
  const allowed = new Set<unknown>(names);
  for (const [index, name] of names.entries())
    if (typeof name !== 'string' || !tools.some((tool) => tool.name === name))
      throw new RequestFieldError(
        `${field}.${index}`,
        `${field}.${index} names the tool '${shown(name)}', which is not in the request's functionDeclarations`,
      );
  return tools.filter((tool) => allowed.has(tool.name));
}

/** `thinkingConfig` → reasoning: a positive budget, a level as the effort; budget 0 is reasoning off (effort `none`). */
function convertThinking(config: Record<string, unknown>): ReasoningRequest | undefined {
  if (!isJsonObject(config.thinkingConfig)) return undefined;
  const thinking = config.thinkingConfig;
  const reasoning: ReasoningRequest = {};
  const budget = optionalNumber(thinking, 'thinkingBudget', 'generationConfig.thinkingConfig.thinkingBudget');
  // 0 turns thinking off; -1 (dynamic, the default) is no setting.
  if (budget === 0) return { effort: 'none' };
  if (budget !== undefined && budget > 0) reasoning.budgetTokens = budget;
  const level = optionalString(thinking, 'thinkingLevel', 'generationConfig.thinkingConfig.thinkingLevel');
  if (level !== undefined && level.toUpperCase() !== 'THINKING_LEVEL_UNSPECIFIED') {
    const effort = level.toLowerCase();
    if (effort !== 'minimal' && effort !== 'low' && effort !== 'medium' && effort !== 'high')
      throw new RequestFieldError(
        'generationConfig.thinkingConfig.thinkingLevel',
        'generationConfig.thinkingConfig.thinkingLevel must be MINIMAL, LOW, MEDIUM or HIGH',
      );
    reasoning.effort = effort;
  }
  // Gemini's default is no thoughts: a budget or level alone asks for none back.
  if (Object.keys(reasoning).length === 0 && thinking.includeThoughts !== true) return undefined;
  reasoning.includeThoughts = thinking.includeThoughts === true;
  return reasoning;
}

/** The `responseMimeType`s the gateway honours: plain text, JSON, and enum output (the bare value). */
const responseMimeTypes = new Set(['text/plain', 'application/json', 'text/x.enum']);

/**
 * The output schema: the schema given, as JSON output; with `responseMimeType: text/x.enum`, a
 * string enum's value as the bare text (`format: 'enum'`); JSON mode (`application/json` alone)
 * as any object. Another mime type (`application/xml`, …) no upstream can be asked for: refused.
 */
function convertSchema(config: Record<string, unknown>, warnings: string[]): OutputSchema | undefined {
  const mimeType = optionalString(config, 'responseMimeType', 'generationConfig.responseMimeType');
  if (mimeType !== undefined && !responseMimeTypes.has(mimeType))
    throw new RequestFieldError(
      'generationConfig.responseMimeType',
      `generationConfig.responseMimeType '${shown(mimeType)}' is not supported by the gateway: use text/plain, application/json or text/x.enum`,
      'unsupported',
    );
  const paths = {
    jsonSchema: 'generationConfig.responseJsonSchema',
    openApi: 'generationConfig.responseSchema',
  };
  const enumText = mimeType === 'text/x.enum';
  const schema = clientSchema(config.responseJsonSchema, config.responseSchema, paths, !enumText);
  if (enumText) {
    const field =
      config.responseJsonSchema !== undefined && config.responseJsonSchema !== null
        ? paths.jsonSchema
        : paths.openApi;
    if (schema === undefined || !isEnumSchema(schema))
      throw new RequestFieldError(
        field,
        `${field} must be a STRING schema with enum values when generationConfig.responseMimeType is text/x.enum`,
      );
    // The bare value is one of the enum's, as text: a null has no text form, so `nullable` goes.
    if (nullableRoot(config.responseJsonSchema, config.responseSchema))
      warnings.push(
        `${paths.openApi}.nullable: an enum answer (text/x.enum) is one of its values as text; null is not one of them, so the answer cannot be null`,
      );
    return { schema: schema as never, format: 'enum' };
  }
  if (schema === undefined) {
    if (mimeType === 'application/json') return { schema: { type: 'object' }, strict: false };
    return undefined;
  }
  if (
    nullableRoot(config.responseJsonSchema, config.responseSchema) &&
    isObjectRoot(config.responseSchema as JsonObject)
  )
    warnings.push(
      `${paths.openApi}.nullable: an object answer is asked for as an object, never null (a nullable root object is not what every upstream's structured output takes)`,
    );
  return { schema: schema as never };
}

function applyGenerationConfig(
  body: Record<string, unknown>,
  request: DecodedRequest['request'],
  warnings: string[],
): void {
  if (body.generationConfig === undefined || body.generationConfig === null) return;
  const config = jsonObject(body.generationConfig, 'generationConfig');
  refuse(config, 'candidateCount', [1], 'only one candidate per request is supported');
  refuse(config, 'responseLogprobs', [false], 'log probabilities are not supported by the gateway');
  if (config.logprobs !== undefined && config.logprobs !== null && config.logprobs !== 0)
    throw new RequestFieldError(
      'generationConfig.logprobs',
      'generationConfig.logprobs: log probabilities are not supported by the gateway',
      'unsupported',
    );
  const modalities = config.responseModalities;
  if (
    Array.isArray(modalities) &&
    modalities.some((modality) => typeof modality !== 'string' || modality.toUpperCase() !== 'TEXT')
  )
    throw new RequestFieldError(
      'generationConfig.responseModalities',
      'generationConfig.responseModalities: only text output is supported by the gateway',
      'unsupported',
    );
  const path = (key: string) => `generationConfig.${key}`;
  const maxTokens = optionalCount(config, 'maxOutputTokens', path('maxOutputTokens'));
  if (maxTokens !== undefined) request.maxOutputTokens = maxTokens;
  const temperature = optionalNumber(config, 'temperature', path('temperature'), temperatureRange);
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(config, 'topP', path('topP'), topPRange);
  if (topP !== undefined) request.topP = topP;
  const topK = optionalCount(config, 'topK', path('topK'));
  if (topK !== undefined) request.topK = topK;
  const stops = optionalStrings(config, 'stopSequences', path('stopSequences'));
  if (stops !== undefined && stops.length > 0) request.stopSequences = stops;
  const reasoning = convertThinking(config);
  if (reasoning !== undefined) request.reasoning = reasoning;
  const outputSchema = convertSchema(config, warnings);
  if (outputSchema !== undefined) request.outputSchema = outputSchema;
}

/** `mediaResolution` values of the API. */
const mediaResolutions = new Set([
  'MEDIA_RESOLUTION_UNSPECIFIED',
  'MEDIA_RESOLUTION_LOW',
  'MEDIA_RESOLUTION_MEDIUM',
  'MEDIA_RESOLUTION_HIGH',
]);

/**
 * `generationConfig` fields no other protocol's canonical request carries — `seed`,
 * `presencePenalty`, `frequencyPenalty`, `mediaResolution`, `imageConfig` (an image model's output:
 * aspect ratio, size), `enableEnhancedCivicAnswers` — checked and sent on to a Gemini
 * upstream as written, through `providerOptions.gemini.generationConfig`; another provider ignores
 * them, as a Chat client's `seed` and penalties are ignored (docs/gateway.md).
 */
function passedGenerationConfig(body: Record<string, unknown>): JsonObject | undefined {
  if (!isJsonObject(body.generationConfig)) return undefined;
  const config = body.generationConfig;
  const path = (key: string) => `generationConfig.${key}`;
  const passed: JsonObject = {};
  if (config.imageConfig !== undefined && config.imageConfig !== null)
    passed.imageConfig = jsonObject(config.imageConfig, path('imageConfig'));
  const civic = optionalBoolean(config, 'enableEnhancedCivicAnswers', path('enableEnhancedCivicAnswers'));
  if (civic !== undefined) passed.enableEnhancedCivicAnswers = civic;
  const seed = optionalNumber(config, 'seed', path('seed'));
  if (seed !== undefined) {
    if (!Number.isInteger(seed) || Math.abs(seed) > 2 ** 31)
      throw new RequestFieldError(path('seed'), `${path('seed')} must be a 32-bit integer`);
    passed.seed = seed;
  }
  for (const key of ['presencePenalty', 'frequencyPenalty']) {
    const value = optionalNumber(config, key, path(key));
    if (value !== undefined) passed[key] = value;
  }
  const resolution = optionalString(config, 'mediaResolution', path('mediaResolution'));
  if (resolution !== undefined) {
    if (!mediaResolutions.has(resolution))
      throw new RequestFieldError(
        path('mediaResolution'),
        `${path('mediaResolution')} must be MEDIA_RESOLUTION_LOW, MEDIA_RESOLUTION_MEDIUM or MEDIA_RESOLUTION_HIGH`,
      );
    passed.mediaResolution = resolution;
  }
  return Object.keys(passed).length === 0 ? undefined : passed;
}

/**
 * What goes to a Gemini upstream only (`providerOptions.gemini`): `safetySettings`, the
 * `generationConfig` fields of {@link passedGenerationConfig}, and a `VALIDATED` function-calling
 * mode (elsewhere `auto` with every tool strict).
 */
function geminiOptions(body: Record<string, unknown>): JsonObject | undefined {
  const options: JsonObject = {};
  const safety = safetySettings(body);
  if (safety !== undefined) options.safetySettings = safety;
  const generationConfig = passedGenerationConfig(body);
  if (generationConfig !== undefined) options.generationConfig = generationConfig;
  if (callingConfig(body)?.mode === 'VALIDATED') options.functionCallingMode = 'VALIDATED';
  return Object.keys(options).length === 0 ? undefined : options;
}

/**
 * The text of `systemInstruction`: a Content whose parts are text (a part with only a `thought`
 * flag or empty text adds nothing), or a plain string as the SDKs accept it. Anything else — a
 * media part, a function call, a value of another type — is refused by path: dropping it would
 * answer another question than the one asked.
 */
function systemText(instruction: unknown): string {
  if (instruction === undefined || instruction === null) return '';
  if (typeof instruction === 'string') return instruction;
  if (!isJsonObject(instruction))
    throw new RequestFieldError(
      'systemInstruction',
      'systemInstruction must be a Content object or a string',
    );
  const parts = optionalArray(instruction, 'parts', 'systemInstruction.parts') ?? [];
  const texts: string[] = [];
  for (const [index, part] of parts.entries()) {
    const at = `systemInstruction.parts.${index}`;
    const object = jsonObject(part, at);
    const text = optionalString(object, 'text', `${at}.text`);
    if (text === undefined && Object.keys(object).some((key) => key !== 'thought'))
      throw new RequestFieldError(
        at,
        `${at}: only text parts are supported in systemInstruction`,
        'unsupported',
      );
    if (text !== undefined && text !== '') texts.push(text);
  }
  return texts.join('\n\n');
}

/** Most `safetySettings` entries taken (the API has a dozen harm categories). */
const maxSafetySettings = 32;

/** An enum value of the API (`HARM_CATEGORY_HARASSMENT`, `BLOCK_ONLY_HIGH`, `SEVERITY`). */
const enumName = /^[A-Z][A-Z0-9_]{0,63}$/;

/**
 * `safetySettings`, sent on to a Gemini upstream (the Gemini API, or Gemini on Vertex) as the
 * client wrote them, through `providerOptions.gemini`: they change what the model may answer, so
 * dropping them would be a silent loss. Another provider has no such setting and ignores them
 * (docs/gateway.md). Each entry is a `category` and a `threshold` (and an optional `method`), enum
 * names of the API; anything else is a 400 naming the field, as Gemini itself would answer.
 */
function safetySettings(object: Record<string, unknown>): JsonObject[] | undefined {
  const items = optionalArray(object, 'safetySettings');
  if (items === undefined || items.length === 0) return undefined;
  if (items.length > maxSafetySettings)
    throw new RequestFieldError(
      'safetySettings',
      `safetySettings holds more than ${maxSafetySettings} entries`,
    );
  return items.map((item, index) => {
    const at = `safetySettings.${index}`;
    const entry = jsonObject(item, at);
    const setting: JsonObject = {};
    for (const key of Object.keys(entry))
      if (key !== 'category' && key !== 'threshold' && key !== 'method') {
        const field = `${at}.${shown(key)}`;
        throw new RequestFieldError(field, `${field}: unknown safety setting field`);
      }
    for (const key of ['category', 'threshold', 'method']) {
      const value =
        key === 'method'
          ? optionalString(entry, key, `${at}.${key}`)
          : requiredString(entry, key, `${at}.${key}`);
      if (value === undefined) continue;
      if (!enumName.test(value))
        throw new RequestFieldError(`${at}.${key}`, `${at}.${key} must be one of the API's enum names`);
      setting[key] = value;
    }
    return setting;
  });
}

/** Decodes a Gemini request; the model and the stream mode come from the path. */
export function decodeRequest(body: unknown, context: DecodeContext, opaque: OpaqueCodec): DecodedRequest {
  const object = bodyObject(body);
  if (object.cachedContent !== undefined)
    throw new RequestFieldError(
      'cachedContent',
      'cachedContent: cached contents are not supported by the gateway',
      'unsupported',
    );
  // A generation the server holds, which the gateway does not have; Model Armor screening of the
  // prompt and reply (Vertex), which a request served without it would leave the client trusting.
  refuse(object, 'continuationToken', [], 'continuing a held generation is not supported by the gateway');
  refuse(object, 'modelArmorConfig', [], 'Model Armor screening is not supported by the gateway');
  const transcript: Item[] = [];
  const system = systemText(object.systemInstruction);
  if (system !== '') transcript.push({ kind: 'system', parts: [{ type: 'text', text: system }] });
  const contents = optionalArray(object, 'contents');
  if (contents === undefined || contents.length === 0)
    throw new RequestFieldError('contents', 'contents must be a non-empty array');
  convertContents(contents, transcript, opaque);
  const request: DecodedRequest['request'] = { transcript };
  const tools = convertTools(object);
  if (tools !== undefined && tools.length > 0) request.tools = tools;
  const choice = convertToolChoice(object);
  if (choice !== undefined) request.toolChoice = checkedToolChoice(choice, request.tools, 'toolConfig');
  const mode = callingConfig(object)?.mode;
  if ((mode === 'ANY' || mode === 'VALIDATED') && request.tools !== undefined)
    request.tools = allowedTools(object, request.tools);
  // VALIDATED holds the calls to their schemas: strict tools where the upstream has them.
  if (mode === 'VALIDATED' && request.tools !== undefined)
    request.tools = request.tools.map((tool) => ({ ...tool, strict: true }));
  const warnings: string[] = [];
  applyGenerationConfig(object, request, warnings);
  const gemini = geminiOptions(object);
  if (gemini !== undefined) request.providerOptions = { gemini };
  if (context.model === undefined || context.model === '')
    throw new RequestFieldError('model', 'the path must name a model');
  const decoded: DecodedRequest = { model: context.model, stream: context.stream ?? false, request };
  if (request.reasoning?.includeThoughts !== true) decoded.hideThoughts = true;
  if (warnings.length > 0) decoded.warnings = warnings;
  return decoded;
}
