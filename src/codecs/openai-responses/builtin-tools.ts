/**
 * A Responses request's built-in tools (`web_search`, `shell`, `mcp`, …): kept as the client wrote
 * them for a Responses upstream, named for the gateway's WARN, and left out where the route or
 * `gateway.builtin_tools` does not allow them.
 */
import type { ProtocolId } from '../../core/adapter.ts';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { RequestFieldError } from '../fields.ts';
import type { DecodedRequest } from '../types.ts';

/** The provider-options key every Responses adapter reads whatever its name (`CanonicalRequest.providerOptions`): built-in tools and their `tool_choice`. */
export const responsesOptionsKey: ProtocolId = 'openai-responses';

/**
 * Built-in tools (`web_search`, `file_search`, `code_interpreter`, `mcp`, `local_shell`, `shell`,
 * `apply_patch`, …) as the client wrote them, with their paths: only a Responses upstream defines
 * them, so they travel in `providerOptions['openai-responses'].tools` and the gateway leaves them
 * out, with a WARN, on a route to any other provider (clients such as Codex always send some).
 */
export interface BuiltinTools {
  tools: JsonObject[];
  paths: string[];
  /** Where each tool sits in `tools`, by `type` and name: one declared again replaces the earlier. */
  at: Map<string, number>;
}

/** A built-in tool's or tool choice's `type`: a string other than those the codec reads itself. */
export function isBuiltinType(type: unknown): boolean {
  return (
    typeof type === 'string' &&
    type !== '' &&
    type !== 'function' &&
    type !== 'custom' &&
    type !== 'namespace' &&
    type !== 'allowed_tools'
  );
}

/**
 * The name `gateway.builtin_tools` allows a built-in tool by: its type, but `hosted_shell` for a
 * `shell` whose environment is not the client's own machine (none, or `local`): `container_auto`
 * and `container_reference` run it in a container of the operator's OpenAI account, and name the
 * account's containers (`container_id`), files (`file_ids`) and skills (`skill_reference`) — one
 * client could reach another's, as with `code_interpreter`.
 */
export function builtinKind(tool: JsonObject): string {
  const { environment } = tool;
  if (
    tool.type === 'shell' &&
    environment !== undefined &&
    environment !== null &&
    !(isJsonObject(environment) && environment.type === 'local')
  )
    return 'hosted_shell';
  return tool.type as string;
}

/**
 * Keeps a built-in tool (one declared again, by type and `name` / `server_label`, replaces the
 * earlier). An `image_generation` mask given by `file_id` (an upload of the operator's account) is
 * refused, as an `input_image` or `input_file` by `file_id` is; by `image_url` it passes.
 */
export function keepBuiltin(builtin: BuiltinTools, tool: JsonObject, path: string): void {
  const mask = tool.type === 'image_generation' ? tool.input_image_mask : undefined;
  if (isJsonObject(mask) && mask.file_id !== undefined && mask.file_id !== null)
    throw new RequestFieldError(
      `${path}.input_image_mask.file_id`,
      'uploaded file ids are not supported by the gateway',
      'unsupported',
    );
  const label = tool.name ?? tool.server_label;
  const key = `${tool.type as string}\u0000${typeof label === 'string' ? label : ''}`;
  const index = builtin.at.get(key);
  if (index === undefined) {
    builtin.at.set(key, builtin.tools.push({ ...tool }) - 1);
    builtin.paths.push(path);
  } else {
    builtin.tools[index] = { ...tool };
    builtin.paths[index] = path;
  }
}

/** The path a `tool_choice` naming a built-in tool is listed under in `decoded.builtinTools`. */
const choicePath = 'tool_choice';

/**
 * Built-in tools and a `tool_choice` naming one, for a Responses upstream: they go in
 * `providerOptions['openai-responses']` (appended to the tools, the choice replacing any), and
 * `decoded.builtinTools` names each so the gateway can leave them out, with a WARN, on another route.
 * A `required` choice goes there too when the built-in tools are the only ones (it is theirs to
 * honour: {@link leaveOutBuiltins} refuses it where none of them is offered).
 */
export function addBuiltins(
  decoded: DecodedRequest,
  builtin: BuiltinTools,
  choice: JsonObject | 'required' | undefined,
): void {
  const options: JsonObject = {};
  const named: NonNullable<DecodedRequest['builtinTools']> = builtin.tools.map((tool, index) => {
    const type = tool.type as string;
    const kind = builtinKind(tool);
    return { path: builtin.paths[index]!, type, ...(kind === type ? {} : { kind }) };
  });
  if (builtin.tools.length > 0) options.tools = builtin.tools;
  if (choice !== undefined) {
    options.tool_choice = choice;
    if (choice !== 'required') named.push({ path: choicePath, type: choice.type as string });
  }
  if (named.length === 0) return;
  decoded.request.providerOptions = { [responsesOptionsKey]: options };
  decoded.builtinTools = named;
}

type NamedBuiltin = NonNullable<DecodedRequest['builtinTools']>[number];

/**
 * Those of `named` that `allowed` lets through: a tool whose kind ({@link builtinKind}) it lists,
 * and a `tool_choice` of a type it lists unless every tool of that type was left out (a shell in
 * a hosted container: the choice would name a tool the upstream is not given).
 */
function allowedBuiltins(named: readonly NamedBuiltin[], allowed: ReadonlySet<string>): Set<NamedBuiltin> {
  const passes = (entry: NamedBuiltin) => allowed.has(entry.kind ?? entry.type);
  const sent = new Set<string>();
  const kept = new Set<string>();
  for (const entry of named)
    if (entry.path !== choicePath) {
      sent.add(entry.type);
      if (passes(entry)) kept.add(entry.type);
    }
  return new Set(
    named.filter((entry) =>
      entry.path === choicePath
        ? passes(entry) && (kept.has(entry.type) || !sent.has(entry.type))
        : passes(entry),
    ),
  );
}

/**
 * Takes built-in tools (and a `tool_choice` naming one) out of the request and names them in its
 * warnings: all of them on a route to another provider than a Responses one (`allowed` undefined:
 * no other provider defines them, and clients such as Codex always send some, so this is no
 * refusal), else those whose kind `allowed` lacks (`gateway.builtin_tools`; {@link builtinKind}).
 * The gateway decides.
 */
export function leaveOutBuiltins(decoded: DecodedRequest, allowed?: ReadonlySet<string>): void {
  const { builtinTools } = decoded;
  if (builtinTools === undefined) return;
  const kept = allowed === undefined ? new Set<NamedBuiltin>() : allowedBuiltins(builtinTools, allowed);
  if (kept.size === builtinTools.length) return;
  const out = builtinTools.filter((entry) => !kept.has(entry));
  const options = decoded.request.providerOptions;
  const builtins = options?.[responsesOptionsKey];
  const reason =
    allowed === undefined
      ? 'only a Responses upstream serves it'
      : 'the gateway does not allow it: gateway.builtin_tools';
  if (isJsonObject(builtins) && builtins.tool_choice === 'required')
    refuseRequired(builtinTools, out, reason);
  if (allowed !== undefined && isJsonObject(builtins)) {
    const tools = Array.isArray(builtins.tools)
      ? builtins.tools.filter((tool) => isJsonObject(tool) && allowed.has(builtinKind(tool)))
      : [];
    if (tools.length > 0) builtins.tools = tools;
    else delete builtins.tools;
    if (out.some((entry) => entry.path === choicePath)) delete builtins.tool_choice;
  }
  if (
    options !== undefined &&
    (allowed === undefined || (isJsonObject(builtins) && Object.keys(builtins).length === 0))
  ) {
    delete options[responsesOptionsKey];
    if (Object.keys(options).length === 0) delete decoded.request.providerOptions;
  }
  (decoded.warnings ??= []).push(...builtinWarnings(out, reason, allowed !== undefined));
  const remaining = builtinTools.filter((entry) => kept.has(entry));
  if (remaining.length > 0) decoded.builtinTools = remaining;
  else delete decoded.builtinTools;
}

/**
 * The WARN details of built-in tools kept for a Responses model (see {@link leaveOutBuiltins}) when
 * a fallback of another provider served the call instead: its adapter reads nothing of
 * `providerOptions['openai-responses']`, so the tools (and a `tool_choice` of theirs) went nowhere.
 * None when the request kept none.
 */
export function builtinsLeftOutByFallback(decoded: DecodedRequest, model: string): string[] {
  const { builtinTools } = decoded;
  if (builtinTools === undefined) return [];
  const reason = `only a Responses upstream serves it; the fallback '${model}' is not one`;
  const details = builtinWarnings(builtinTools, reason, false);
  const options = decoded.request.providerOptions?.[responsesOptionsKey];
  if (isJsonObject(options) && options.tool_choice === 'required')
    details.push(`tool_choice: required was not honoured (${reason}); the model chose`);
  return details;
}

/**
 * The WARN details of built-in tools (and a `tool_choice` naming one) not offered to the model, with
 * why; `byKind` names the kind `gateway.builtin_tools` judged a tool by when not its type.
 */
function builtinWarnings(out: readonly NamedBuiltin[], reason: string, byKind: boolean): string[] {
  return out.map(({ path, type, kind }) =>
    path === choicePath
      ? `tool_choice: built-in tool '${type}' is not offered to the model (${reason}); the model chooses`
      : `${path}: tool type '${type}'${byKind && kind !== undefined ? ` (as '${kind}')` : ''} is not offered to the model (${reason})`,
  );
}

/**
 * A `tool_choice: required` whose only tools are built-in ones ({@link addBuiltins}) cannot be
 * honoured when every one of them is left out: the model would be made to call a tool it is not
 * offered. Refused, naming the field, rather than sent as a choice the model cannot follow.
 */
function refuseRequired(
  builtinTools: readonly NamedBuiltin[],
  out: readonly NamedBuiltin[],
  reason: string,
): void {
  const tools = builtinTools.filter(({ path }) => path !== choicePath);
  if (out.filter(({ path }) => path !== choicePath).length < tools.length) return;
  const types = [...new Set(tools.map(({ type }) => `'${type}'`))].join(', ');
  throw new RequestFieldError(
    'tool_choice',
    `tool_choice: required asks for a tool call, but the request's only tools are built-in tools (${types}) and none is offered to the model (${reason})`,
    'unsupported',
  );
}
