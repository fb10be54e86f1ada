/**
 * Request paths as sent: which protocol's error shape a path answers in, and the paths the gateway
 * refuses to route because a proxy in front of it could read them as another path.
 */
import type { ProtocolName, WireError } from '../codecs/types.ts';

/** A Gemini method on a model (`…/models/{model}:generateContent`). */
const geminiMethod = /:(?:generateContent|streamGenerateContent|countTokens)$/;

/** The protocol a path speaks, for error shapes before a handler runs. */
export function protocolOfPath(path: string, anthropicVersion: boolean): ProtocolName {
  if (path.startsWith('/v1beta/') || geminiMethod.test(path)) return 'gemini';
  if (path.startsWith('/v1/messages') || anthropicVersion) return 'anthropic-messages';
  if (path.startsWith('/v1/responses')) return 'openai-responses';
  return 'openai-chat';
}

/**
 * The path of a request target (origin-form `/p?q`, or absolute-form `http://host/p?q`), query
 * left out, escapes kept.
 */
export function pathOfTarget(target: string): string {
  let start = 0;
  if (!target.startsWith('/')) {
    const scheme = target.indexOf('://');
    start = scheme === -1 ? -1 : target.indexOf('/', scheme + 3);
    if (start === -1) return target.startsWith('*') ? '*' : '/';
  }
  const query = target.indexOf('?', start);
  return target.slice(start, query === -1 ? undefined : query);
}

/** What a path needs to be looked at segment by segment: a `/.`, a `//` or an escape. */
const suspect = /\/\.|\/\/|%/;

/** A dot-segment, literal or percent-encoded (`.`, `..`, `%2e`, `.%2E`). */
const dotSegment = /^(?:\.|%2e){1,2}$/i;
/** An encoded slash or backslash, or a percent-encoded unreserved character (RFC 3986 §2.3). */
const encodedStructure = /%(?:2f|5c|2d|2e|5f|7e|3[0-9]|4[1-9a-f]|5[0-9a]|6[1-9a-f]|7[0-9a])/i;
/** The segments before a name (a model, a stored reply's id, a key's name), decoded once as before. */
const namedBy = new Set(['models', 'responses', 'keys']);

/**
 * Whether a request's path is refused, not routed: it has a dot-segment (`/./`, `/../`, `%2e%2e`,
 * one at the end), an empty segment (`//`), or, outside a name's segment, an encoded slash or
 * backslash or a percent-encoded unreserved character. A URL parser resolves
 * `/v1/messages/../chat/completions` (and `%2e%2e`) to Chat Completions, and the router decodes
 * `/v1/%63hat/completions` to it: a proxy in front of the gateway allowing or denying paths by
 * their text would be bypassed. No SDK sends such a path. A name's segment (`/models/{model}`,
 * `/responses/{id}`, `/keys/{name}`) keeps its escapes (`models.retrieve('org/model')` sends
 * `%2F`): decoded, it names a model or a reply, never another route.
 */
export function isAmbiguousPath(path: string): boolean {
  if (!suspect.test(path)) return false;
  const segments = path.split('/');
  for (let index = 1; index < segments.length; index++) {
    const segment = segments[index]!;
    if (dotSegment.test(segment)) return true;
    // A trailing `/` is an unknown route (a 404 as any), not a path read as another.
    if (segment === '' && index < segments.length - 1) return true;
    if (!segment.includes('%')) continue;
    if (namedBy.has(segments[index - 1]!) && !fixedAfterName(segment)) continue;
    if (encodedStructure.test(segment)) return true;
  }
  return false;
}

/** Whether an escaped segment after a name's prefix decodes to a route's own (`/v1/responses/input_tokens`). */
function fixedAfterName(segment: string): boolean {
  try {
    return decodeURIComponent(segment) === 'input_tokens';
  } catch {
    return false;
  }
}

/** The 404 of a path refused by {@link isAmbiguousPath}. */
export function ambiguousPathError(method: string, path: string): WireError {
  return {
    status: 404,
    errorClass: 'invalid_request',
    message: `no route for ${method} ${path.slice(0, 200)}: a path is routed as sent, and this one has a dot-segment, an empty segment, or an encoded slash or unreserved character outside a name`,
  };
}
