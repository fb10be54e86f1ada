/** Schemas in (zod, Standard Schema, JSON Schema), validated values out. */
export { validateJsonSchema } from './json-schema.ts';
export {
  formatIssues,
  type InferSchema,
  isStandardSchema,
  type SchemaIssue,
  type SchemaLike,
  type StandardSchemaWithJson,
  toJsonSchema,
  validateValue,
  type ValidationResult,
} from './schema.ts';
export {
  attachStructured,
  type ExecutableTool,
  StructuredOutputError,
  type Tool,
  type ToolDefinition,
  tool,
  type ToolSchema,
  toOutputSchema,
} from './structured.ts';
