/**
 * Structured output with function tools on a model that cannot take both (Gemini before 3): the
 * answer is asked for as a call of a function the adapter adds, and read back as the reply's text.
 */
import { isJsonObject, type JsonValue } from '../../core/json.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { callOf, type ProviderContext } from '../common/definition.ts';
import type { GeminiFunctionDeclaration, GeminiRequestBody } from './api.ts';
import { wrappedSchema } from '../common/wrapped-schema.ts';
import { convertSchema, jsonSchemaForGemini } from './schema.ts';

/**
 * The function the model gives its structured answer through: its name (never a name the request's
 * own tools use) and whether the schema was wrapped as `{ value }` (function arguments are an
 * object; an answer of another type is the `value` property of one).
 */
export interface AnswerFunction {
  name: string;
  wrapped: boolean;
}

/** The name asked for first; `final_answer_1`, `_2`, … when a tool of the request has it. */
const baseName = 'final_answer';

/**
 * The answer function of a request, or `undefined` when JSON mode goes as is: the request has an
 * output schema and function tools, and the model cannot take JSON mode with function declarations
 * (`structuredOutputWithTools: false`, Gemini before 3: the API answers 400 "Function calling with
 * a response mime type: 'application/json' is unsupported"). WARNs: the answer then comes as a
 * function call the adapter turns back into text, and the model must call a function every turn.
 */
export function answerFunctionFor(
  request: CanonicalRequest,
  context: ProviderContext,
  functionNames: readonly string[],
): AnswerFunction | undefined {
  if (request.outputSchema === undefined || functionNames.length === 0) return undefined;
  if (context.capabilities.structuredOutputWithTools !== false) return undefined;
  let name = baseName;
  for (let suffix = 1; functionNames.includes(name); suffix++) name = `${baseName}_${suffix}`;
  const { wrapped } = wrappedSchema(request.outputSchema.schema);
  context.warn('structured output asked for as a function call: the model takes no JSON mode with tools', {
    model: context.model,
    function: name,
  });
  return { name, wrapped };
}

/** The answer function's declaration, in the schema dialect the request's tools use. */
export function answerDeclaration(
  answer: AnswerFunction,
  request: CanonicalRequest,
  useJsonSchema: boolean,
): GeminiFunctionDeclaration {
  const output = request.outputSchema!;
  const { schema } = wrappedSchema(output.schema);
  const purpose = output.description === undefined ? '' : ` The answer: ${output.description}`;
  const declaration: GeminiFunctionDeclaration = {
    name: answer.name,
    description: `Call this function with your final answer, once you have everything it needs, instead of answering with text.${purpose}`,
  };
  if (useJsonSchema) declaration.parametersJsonSchema = jsonSchemaForGemini(schema);
  else declaration.parameters = convertSchema(schema, { where: 'output schema' });
  return declaration;
}

/**
 * The tool config with the answer function: the model must call a function (`ANY`), one of the
 * request's tools or the answer; a named tool choice stays; `none` allows the answer function only.
 */
export function answerToolConfig(
  answer: AnswerFunction,
  request: CanonicalRequest,
): GeminiRequestBody['toolConfig'] {
  const choice = request.toolChoice;
  if (typeof choice === 'object')
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
  if (choice === 'none')
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [answer.name] } };
  return { functionCallingConfig: { mode: 'ANY' } };
}

/** The answer call's arguments as the reply's JSON text (a wrapped answer's `value`). */
export function answerText(answer: AnswerFunction, args: JsonValue | undefined): string {
  const value = answer.wrapped && isJsonObject(args) ? args.value : args;
  return JSON.stringify(value ?? {});
}

const answerFunctions = new WeakMap<object, AnswerFunction>();

/** Records the answer function `buildRequest` sent for this call, for the response reader. */
export function rememberAnswerFunction(context: ProviderContext, answer: AnswerFunction | undefined): void {
  if (answer === undefined) answerFunctions.delete(callOf(context));
  else answerFunctions.set(callOf(context), answer);
}

/** The answer function sent for this call, if any. */
export function answerFunctionOf(context: ProviderContext): AnswerFunction | undefined {
  return answerFunctions.get(callOf(context));
}
