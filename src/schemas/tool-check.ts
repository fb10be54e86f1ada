/**
 * Checks of a `tool()` definition at definition time: name, schema, `execute`, `timeoutMs`,
 * `needsApproval`, and the JSON Schema the model will see. A bad one throws an
 * `InvalidRequestError` (code `invalid_tool`) naming each problem — not a provider 400 on the
 * first call, and not a tool whose every call fails validation.
 */
import { z } from 'zod';
import { checkOptions, invalidInput } from '../core/input-check.ts';
import type { JsonObject } from '../core/json.ts';
import { jsonObjectSchema, parseWithSchema, type ValidationIssue } from '../core/transcript-schema.ts';
import { maxTimerMs } from '../core/timer-limit.ts';

/** The longest delay `setTimeout` honours; a longer one fires at once (Node clamps it to 1 ms). */
const jsonTypes = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

const definitionSchema = z.looseObject({
  name: z
    .string({ error: 'name must be a non-empty string' })
    .refine((name) => name.trim() !== '', 'name must be a non-empty string'),
  description: z.string({ error: 'description must be a string' }).optional(),
  input: z.custom<object>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    'input must be a zod schema, a Standard Schema or a JSON Schema object',
  ),
  jsonSchema: z
    .custom<object>(
      (value) => typeof value === 'object' && value !== null,
      'jsonSchema must be a JSON Schema object',
    )
    .optional(),
  execute: z.custom<object>((value) => typeof value === 'function', 'execute must be a function').optional(),
  needsApproval: z
    .custom<object>(
      (value) => typeof value === 'boolean' || typeof value === 'function',
      'needsApproval must be a boolean or a function of the input',
    )
    .optional(),
  timeoutMs: z
    .number({ error: 'timeoutMs must be a number of milliseconds' })
    .positive('timeoutMs must be positive')
    .max(maxTimerMs, `timeoutMs must be at most ${maxTimerMs} ms (a longer timer fires at once)`)
    .optional(),
});

/** Validates a `tool()` definition's fields; throws an `InvalidRequestError` (`invalid_tool`). */
export function checkToolDefinition(definition: unknown): void {
  try {
    checkOptions(definitionSchema, definition, 'tool', 'definition');
  } catch (error) {
    // Same error, the tool's code: a definition is not an options object.
    throw invalidInput(
      'tool',
      (error as { cause: { issues: ValidationIssue[] } }).cause.issues,
      'invalid_tool',
    );
  }
}

/**
 * Checks the JSON Schema a tool sends: plain JSON (no cycles, functions or `__proto__`), an object
 * schema at the top (`type: 'object'` or no type: every provider takes only objects as tool input),
 * and every `type` a JSON Schema type name. Throws an `InvalidRequestError` (`invalid_tool`).
 */
export function checkToolJsonSchema(name: string, schema: JsonObject): void {
  const parsed = parseWithSchema(jsonObjectSchema, schema);
  const issues: ValidationIssue[] = parsed.ok ? typeProblems(schema) : parsed.issues;
  if (parsed.ok && schema.type !== undefined && schema.type !== 'object') {
    issues.unshift({
      path: 'type',
      message: `a tool's input must be an object schema, not ${JSON.stringify(schema.type)}`,
    });
  }
  if (issues.length === 0) return;
  throw invalidInput(
    `tool ${name}: invalid input JSON Schema`,
    issues.map((issue) => ({
      ...issue,
      path: issue.path === '(root)' ? 'inputSchema' : `inputSchema.${issue.path}`,
    })),
    'invalid_tool',
  );
}

/** Every `type` keyword that is not a JSON Schema type name (iterative; the schema is known acyclic). */
function typeProblems(schema: JsonObject): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const stack: Array<[unknown, string]> = [[schema, '']];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    for (const [key, value] of Object.entries(node)) {
      const at = path === '' ? key : Array.isArray(node) ? `${path}[${key}]` : `${path}.${key}`;
      const names =
        typeof value === 'string'
          ? [value]
          : Array.isArray(value) && value.every((entry) => typeof entry === 'string')
            ? value
            : undefined;
      if (key === 'type' && !Array.isArray(node) && names !== undefined) {
        const unknown = (names as string[]).filter((entry) => !jsonTypes.has(entry));
        if (unknown.length > 0)
          issues.push({ path: at, message: `not a JSON Schema type: ${unknown.join(', ')}` });
        continue;
      }
      stack.push([value, at]);
    }
  }
  return issues;
}
