/**
 * An Anthropic request's tools: its client (`custom`) tools, and the tools Anthropic defines (a
 * `type` and no `input_schema`), kept as written for an Anthropic upstream. Of those, the server
 * tools (Anthropic runs them: `web_search_…`, `web_fetch_…`, `code_execution_…`, …) are left out
 * where `gateway.builtin_tools` does not allow them; those the client runs (`bash_…`, …) pass.
 */
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import type { ToolSpec } from '../../core/tools.ts';
import {
  jsonObject,
  optionalArray,
  optionalBoolean,
  optionalString,
  RequestFieldError,
  requiredString,
} from '../fields.ts';
import type { DecodedRequest } from '../types.ts';

/** An Anthropic-defined tool's `type`: a lower-case name with its version date (`web_search_20250305`). */
const serverToolType = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * The kinds of Anthropic-defined tools the client runs itself: Anthropic gives the model their
 * schema, the call comes back as a `tool_use` the client executes on its own machine. They reach
 * nothing of the operator's account, so `gateway.builtin_tools` does not judge them. Every other
 * kind is a server tool (Anthropic runs it, with the operator's key), a new one included.
 */
export const clientToolKinds: ReadonlySet<string> = new Set(['bash', 'text_editor', 'computer', 'memory']);

/**
 * The name `gateway.builtin_tools` allows an Anthropic-defined tool by: its type without the
 * version date (`web_search_20250305` → `web_search`, `code_execution_20250825` → `code_execution`).
 */
export function serverToolKind(type: string): string {
  return type.replace(/_\d{8}$/, '');
}

/**
 * The request's tools: its client (`custom`) tools as canonical specs, and the tools Anthropic
 * defines (`web_search_…`, `bash_…`: a `type` and no `input_schema`) as written, for an Anthropic
 * upstream (`providerOptions.anthropic.tools`), with their paths.
 */
export function convertTools(body: Record<string, unknown>): {
  specs: ToolSpec[];
  server: JsonObject[];
  paths: string[];
} {
  const specs: ToolSpec[] = [];
  const server: JsonObject[] = [];
  const paths: string[] = [];
  for (const [index, tool] of (optionalArray(body, 'tools') ?? []).entries()) {
    const path = `tools.${index}`;
    const object = jsonObject(tool, path);
    if (object.type !== undefined && object.type !== 'custom' && object.input_schema === undefined) {
      if (typeof object.type !== 'string' || !serverToolType.test(object.type))
        throw new RequestFieldError(`${path}.type`, `${path}.type must be custom or a server tool's type`);
      requiredString(object, 'name', `${path}.name`);
      server.push({ ...object });
      paths.push(path);
      continue;
    }
    const spec: ToolSpec = {
      name: requiredString(object, 'name', `${path}.name`),
      inputSchema: jsonObject(object.input_schema ?? { type: 'object' }, `${path}.input_schema`),
    };
    const description = optionalString(object, 'description', `${path}.description`);
    if (description !== undefined) spec.description = description;
    const strict = optionalBoolean(object, 'strict', `${path}.strict`);
    if (strict !== undefined) spec.strict = strict;
    specs.push(spec);
  }
  return { specs, server, paths };
}

/** Whether `gateway.builtin_tools` (`allowed`) lets an Anthropic-defined tool of `type` through. */
function isAllowed(type: string, allowed: ReadonlySet<string>): boolean {
  const kind = serverToolKind(type);
  return clientToolKinds.has(kind) || allowed.has(kind);
}

/**
 * Takes the server tools whose kind ({@link serverToolKind}) `allowed` lacks (`gateway.builtin_tools`)
 * out of a request routed to an Anthropic upstream, and names each in its warnings, as a Responses
 * client's built-in tools are (`leaveOutBuiltins`): they run under the operator's key, and some reach
 * the account itself (`code_execution`: its containers and files). A `tool_choice` naming one is
 * dropped with them (the model chooses); `any` whose only tools were left out is refused by name.
 * The tools the client runs ({@link clientToolKinds}) always pass. The gateway decides.
 */
export function leaveOutServerTools(decoded: DecodedRequest, allowed: ReadonlySet<string>): void {
  const { serverTools, request } = decoded;
  const options = request.providerOptions?.anthropic;
  if (serverTools === undefined || options === undefined || !Array.isArray(options.tools)) return;
  const out = serverTools.filter(({ type }) => !isAllowed(type, allowed));
  if (out.length === 0) return;
  const reason = 'the gateway does not allow it: gateway.builtin_tools';
  const warnings = (decoded.warnings ??= []);
  for (const { path, type } of out)
    warnings.push(
      `${path}: tool type '${type}' (as '${serverToolKind(type)}') is not offered to the model (${reason})`,
    );
  const tools = options.tools.filter(
    (tool) => isJsonObject(tool) && typeof tool.type === 'string' && isAllowed(tool.type, allowed),
  );
  const choice = request.toolChoice;
  if (choice === 'required' && tools.length === 0 && (request.tools ?? []).length === 0)
    throw new RequestFieldError(
      'tool_choice',
      `tool_choice: any asks for a tool call, but the request's only tools are server tools and none is offered to the model (${reason})`,
      'unsupported',
    );
  const kept = new Set(tools.map((tool) => (tool as JsonObject).name));
  if (
    typeof choice === 'object' &&
    !kept.has(choice.name) &&
    !(request.tools ?? []).some((tool) => tool.name === choice.name)
  ) {
    delete request.toolChoice;
    warnings.push(
      `tool_choice: server tool '${choice.name}' is not offered to the model (${reason}); the model chooses`,
    );
  }
  const remaining = serverTools.filter((entry) => !out.includes(entry));
  if (remaining.length > 0) decoded.serverTools = remaining;
  else delete decoded.serverTools;
  const { tools: _all, ...rest } = options;
  const anthropic: JsonObject = tools.length > 0 ? { ...rest, tools } : rest;
  const { anthropic: _options, ...others } = request.providerOptions!;
  if (Object.keys(anthropic).length > 0) request.providerOptions = { ...others, anthropic };
  else if (Object.keys(others).length > 0) request.providerOptions = others;
  else delete request.providerOptions;
}
