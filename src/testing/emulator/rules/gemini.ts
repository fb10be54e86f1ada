/**
 * Gemini request rules: an API key, thought signatures on Gemini 3 function calls of the current turn,
 * and no JSON mode with function declarations before Gemini 3.
 */
import { googleError } from '../errors.ts';
import { geminiModelFromPath } from '../request-fields.ts';
import type { JsonScript, RecordedRequest } from '../types.ts';

type Part = Record<string, unknown>;
interface Content {
  role?: unknown;
  parts?: unknown;
}

/** Values the Gemini docs give for replaying calls that never had a signature; accepted like real ones. */
export const bypassSignatures = ['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go'];

function partsOf(content: Content | undefined): Part[] {
  return Array.isArray(content?.parts)
    ? content.parts.filter((part): part is Part => typeof part === 'object' && part !== null)
    : [];
}

/** A user content with anything besides `functionResponse` parts (text, images, …) starts a turn. */
function startsTurn(content: Content): boolean {
  const role = content.role ?? 'user';
  return role === 'user' && partsOf(content).some((part) => !('functionResponse' in part));
}

function enforcesSignatures(model: string | undefined): boolean {
  // Gemini 3 Pro Image is documented not to enforce the validation.
  return model?.includes('gemini-3') === true && !model.includes('image');
}

function missingSignature(name: string, position: number): JsonScript {
  return googleError(
    400,
    `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`${name}\` , position ${position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
  );
}

/*
 * The rule, from https://ai.google.dev/gemini-api/docs/thought-signatures. Quoted: "When using Gemini 3
 * models, you must pass back thought signatures during function calling, otherwise you will get a
 * validation error (4xx status code). This includes when using the minimal thinking level setting for
 * Gemini 3 Flash." The "Signatures in function calling parts" section (paraphrased: the stored English
 * copy is cut there, its translations agree) says:
 *   - Validation: strict validation is enforced on all function calls within the current turn; only
 *     the current turn is validated, not previous turns.
 *   - The API goes back through the history (newest to oldest) to the most recent user message with
 *     standard content (e.g. text), which starts the current turn; a functionResponse never does.
 *   - All model functionCall steps after that user message belong to the turn.
 *   - The first functionCall part in each step of the current turn must include its thought_signature;
 *     omitting it fails the request with a 400 error.
 *   - Parallel function calls: the signature is attached only to the first functionCall part, later
 *     functionCall parts of the same response carry none.
 * So only the first call of each model step is checked. The documented bypass values are non-empty
 * strings and pass like any signature.
 */
function checkSignatures(contents: Content[]): JsonScript | undefined {
  let turnStart = -1;
  for (let index = contents.length - 1; index >= 0; index--) {
    const content = contents[index];
    if (content !== undefined && startsTurn(content)) {
      turnStart = index;
      break;
    }
  }
  for (let index = turnStart + 1; index < contents.length; index++) {
    const content = contents[index];
    if (content?.role !== 'model') continue;
    const firstCall = partsOf(content).find((part) => 'functionCall' in part);
    if (firstCall === undefined) continue;
    const signature = firstCall.thoughtSignature;
    if (typeof signature === 'string' && signature !== '') continue;
    const call = firstCall.functionCall as { name?: unknown } | null;
    return missingSignature(String(call?.name), index + 1);
  }
  return undefined;
}

/** Checks a `generateContent` / `streamGenerateContent` request; returns Google's error response on a violation. */
export function checkGeminiRequest(request: RecordedRequest): JsonScript | undefined {
  if (!request.headers['x-goog-api-key'] && !request.query.key) {
    return googleError(
      403,
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    );
  }
  return checkGeminiBody(request);
}

/** The body rules (JSON mode with tools, Gemini 3 thought signatures), shared with Vertex, whose credentials differ. */
export function checkGeminiBody(request: RecordedRequest): JsonScript | undefined {
  const model = geminiModelFromPath(request.path);
  const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as {
    contents?: unknown;
    tools?: unknown;
    generationConfig?: unknown;
  };
  const jsonMode = checkJsonModeWithTools(model, body);
  if (jsonMode !== undefined) return jsonMode;
  if (!enforcesSignatures(model)) return undefined;
  return Array.isArray(body.contents) ? checkSignatures(body.contents as Content[]) : undefined;
}

/** Models before Gemini 3 (1.x, 2.x): they take no JSON mode beside function declarations. */
const beforeGemini3 = /(^|\/)gemini-[12]\./;

/*
 * Gemini 2.5 (and earlier) answer JSON mode (`responseMimeType: 'application/json'`) together with
 * function declarations with a 400 INVALID_ARGUMENT "Function calling with a response mime type:
 * 'application/json' is unsupported" (googleapis/python-genai#867, openai/openai-agents-python#656);
 * Gemini 3 takes both. Other tools (Google Search, code execution) are not function calling.
 */
function checkJsonModeWithTools(
  model: string | undefined,
  body: { tools?: unknown; generationConfig?: unknown },
): JsonScript | undefined {
  if (model === undefined || !beforeGemini3.test(model)) return undefined;
  const config = body.generationConfig as { responseMimeType?: unknown } | undefined;
  if (config?.responseMimeType !== 'application/json' || !Array.isArray(body.tools)) return undefined;
  const declares = (body.tools as unknown[]).some((tool) => {
    const declarations = (tool as { functionDeclarations?: unknown } | null)?.functionDeclarations;
    return Array.isArray(declarations) && declarations.length > 0;
  });
  if (!declares) return undefined;
  return googleError(400, "Function calling with a response mime type: 'application/json' is unsupported");
}
