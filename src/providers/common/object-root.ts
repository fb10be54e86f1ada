/**
 * Output schemas for providers that take only an object at the root of one: OpenAI (`response_format`
 * json_schema, `text.format`: 400 "schema must be a JSON Schema of 'type: \"object\"'" to a root
 * array, string or enum, however `strict` is set) and Claude (`output_config.format`: Anthropic's
 * own SDK refuses any other root, "JSON schema must be an object"). Such a schema is sent wrapped as
 * the `value` property of a closed object, and the reply is read back as the value's JSON text
 * (`output-text.ts`).
 */
import type { OutputSchema } from '../../core/request.ts';
import type { ProviderContext } from './definition.ts';
import { rememberWrappedOutput } from './output-text.ts';
import { wrappedSchema } from './wrapped-schema.ts';

/**
 * The output schema with an object root: an object schema as is (`type: 'object'` added when it
 * only has `properties`; a root `$ref` to one resolved), any other wrapped as `{ value }`
 * (`required`, no other property) — which the call remembers, so its reply is unwrapped.
 */
export function objectRootedOutput(output: OutputSchema, context: ProviderContext): OutputSchema {
  const { schema, wrapped } = wrappedSchema(output.schema);
  if (wrapped) {
    rememberWrappedOutput(context);
    return { ...output, schema: { ...schema, additionalProperties: false } };
  }
  if (schema === output.schema && schema.type === 'object') return output;
  return { ...output, schema: { ...schema, type: 'object' } };
}
