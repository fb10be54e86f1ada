/**
 * Tool names every upstream takes. Clients name tools as their protocol allows — Gemini and MCP
 * take `github.create_issue:v2`, OpenAI and Anthropic refuse anything outside `[a-zA-Z0-9_-]{1,64}`,
 * Gemini a name that starts with a digit — and the gateway may route a request to any of them (a
 * fallback of another protocol included). So a name outside what all of them take is sent as a safe
 * one (its characters kept where allowed, a digest of the original appended), the same every turn
 * without state, and the model's calls are named back in the client's terms. A request whose names
 * are all safe (nearly every one) costs one regular-expression test per name.
 */
import type { CanonicalRequest, CanonicalResponse } from '../core/request.ts';
import type { StreamEvent } from '../core/events.ts';
import { safeToolName, safeToolNamePattern } from '../core/tool-names.ts';
import type { Part } from '../core/transcript.ts';
import { GatewayError } from './errors.ts';
import { parseJson } from '../core/json-text.ts';

/**
 * Renames, in place, every tool name of `request` that is not safe (tool specs, a named tool
 * choice, the transcript's calls and results); returns upstream name → client name, or undefined
 * when nothing was renamed.
 */
export function renameTools(
  request: Pick<CanonicalRequest, 'tools' | 'toolChoice' | 'transcript'>,
): Map<string, string> | undefined {
  let names: Map<string, string> | undefined;
  let safeNames: Set<string> | undefined;
  const rename = (name: string): string => {
    if (safeToolNamePattern.test(name)) return name;
    const upstream = safeToolName(name);
    names ??= new Map();
    // A name the client gave as it is may be another's safe form: neither could be told apart.
    safeNames ??= new Set(
      (request.tools ?? []).map((tool) => tool.name).filter((tool) => safeToolNamePattern.test(tool)),
    );
    const known = safeNames.has(upstream) ? upstream : names.get(upstream);
    if (known !== undefined && known !== name)
      throw new GatewayError({
        status: 400,
        errorClass: 'invalid_request',
        message: `the tool names '${known}' and '${name}' cannot both be sent to every upstream; rename one`,
      });
    names.set(upstream, name);
    return upstream;
  };
  for (const tool of request.tools ?? []) tool.name = rename(tool.name);
  if (typeof request.toolChoice === 'object' && request.toolChoice.type === 'tool')
    request.toolChoice = { ...request.toolChoice, name: rename(request.toolChoice.name) };
  for (const item of request.transcript)
    for (const part of item.parts) {
      if (part.type === 'tool-call') part.name = rename(part.name);
      else if (part.type === 'tool-result' && part.name !== undefined) part.name = rename(part.name);
    }
  return names;
}

function clientPart(part: Part, names: ReadonlyMap<string, string>): Part {
  if (part.type !== 'tool-call') return part;
  const name = names.get(part.name);
  return name === undefined ? part : { ...part, name };
}

/** `text` with every upstream name replaced by the client's (an upstream's error, a finish message). */
export function clientText(text: string, names: ReadonlyMap<string, string>): string {
  let renamed = text;
  for (const [upstream, client] of names)
    if (renamed.includes(upstream)) renamed = renamed.replaceAll(upstream, client);
  return renamed;
}

/** `response` with its tool calls named as the client named them, its metadata's texts too. */
export function clientResponse<Response extends CanonicalResponse>(
  response: Response,
  names: ReadonlyMap<string, string>,
): Response {
  const renamed = { ...response, content: response.content.map((part) => clientPart(part, names)) };
  if (response.metadata !== undefined) {
    // Rare (only when a name was renamed): the metadata as JSON, each name replaced JSON-escaped.
    let json = JSON.stringify(response.metadata);
    for (const [upstream, client] of names)
      json = json.replaceAll(upstream, JSON.stringify(client).slice(1, -1));
    renamed.metadata = parseJson(json) as Response['metadata'];
  }
  const calls = (response as { toolCalls?: unknown }).toolCalls;
  if (Array.isArray(calls))
    (renamed as { toolCalls?: unknown }).toolCalls = calls.map((call: { name: string }) => {
      const name = names.get(call.name);
      return name === undefined ? call : { ...call, name };
    });
  return renamed;
}

/** `event` with a tool call named as the client named it. */
export function clientEvent(event: StreamEvent, names: ReadonlyMap<string, string>): StreamEvent {
  if (event.type === 'tool-call-start') {
    const name = names.get(event.name);
    return name === undefined ? event : { ...event, name };
  }
  if (event.type === 'finish') return { ...event, response: clientResponse(event.response, names) };
  return event;
}
