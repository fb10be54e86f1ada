/**
 * An Anthropic client's `anthropic-beta` header (the SDKs' `betas`; Claude Code sends several): the
 * flags passed on to an Anthropic upstream, merged with the operator's. Only those that change how
 * the model answers ({@link defaultClientBetas}, plus the operator's `gateway.client_betas`): a flag
 * such as `files-api-*`, `code-execution-*`, `skills-*` or `mcp-client-*` opens a feature of the
 * operator's whole account (its uploaded files, containers, skills; servers called with its key),
 * so one client could reach another's. Never one that changes who is authenticated or billed
 * (`oauth-*`: the operator's key pays), never more than a few, each a plain token (nothing that
 * could end the header or start another).
 */
import type { DecodedRequest } from '../codecs/types.ts';
import { shown } from '../codecs/fields.ts';

/** The most flags passed on; the rest are left out with the WARN. */
export const maxClientBetas = 16;

/** The longest header read; a longer one is left out whole. */
const maxHeaderLength = 1024;

/** A flag: letters, digits, `.`, `_` and `-`, at most 64 (Anthropic's are `name-yyyy-mm-dd`). */
const flagGrammar = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Flags that change authentication or billing identity: never the client's to choose. */
const identityFlag = /^oauth-/i;

/**
 * The prefixes of the flags a client may send by default: each changes only how the model answers
 * (its window, thinking, tool streaming, output length, cache lifetime, effort, context edits) —
 * none touches the account's files, containers, skills, MCP servers or authentication.
 */
export const defaultClientBetas: readonly string[] = [
  'context-1m-',
  'interleaved-thinking-',
  'fine-grained-tool-streaming-',
  'token-efficient-tools-',
  'output-128k-',
  'extended-cache-ttl-',
  'effort-',
  'context-management-',
];

/** The flag prefixes a client may send: {@link defaultClientBetas} and the operator's `gateway.client_betas`. */
export function clientBetaPrefixes(configured: readonly string[] | undefined): readonly string[] {
  return [...defaultClientBetas, ...(configured ?? [])];
}

/** The client's flags to pass on, and what was left out (each a line of the WARN). */
export function parseClientBetas(
  header: string,
  allowed: readonly string[] = defaultClientBetas,
): { betas: string[]; leftOut: string[] } {
  if (header.length > maxHeaderLength)
    return {
      betas: [],
      leftOut: [`anthropic-beta: longer than ${maxHeaderLength} characters, not passed on`],
    };
  const betas: string[] = [];
  const leftOut: string[] = [];
  for (const raw of header.split(',')) {
    const flag = raw.trim();
    if (flag === '' || betas.includes(flag)) continue;
    if (!flagGrammar.test(flag))
      leftOut.push(`anthropic-beta: '${shown(flag)}' is not a beta flag, not passed on`);
    else if (identityFlag.test(flag))
      leftOut.push(`anthropic-beta: '${flag}' changes the authentication, not passed on`);
    else if (!allowed.some((prefix) => flag.startsWith(prefix)))
      leftOut.push(
        `anthropic-beta: '${flag}' is not allowed by the gateway: gateway.client_betas, not passed on`,
      );
    else if (betas.length >= maxClientBetas)
      leftOut.push(`anthropic-beta: '${flag}' is past the ${maxClientBetas} flags passed on`);
    else betas.push(flag);
  }
  return { betas, leftOut };
}

/**
 * Puts the client's flags where the Anthropic adapter reads them (`providerOptions.anthropic.
 * clientBetas`, which only the Anthropic API's own adapter sends) and what was left out in the
 * request's WARN; `allowed` is {@link clientBetaPrefixes}. For a request routed to an Anthropic upstream only: toward any other the flags
 * mean nothing and are not kept.
 */
export function applyClientBetas(
  decoded: DecodedRequest,
  header: string | undefined,
  allowed: readonly string[],
): void {
  if (header === undefined) return;
  const { betas, leftOut } = parseClientBetas(header, allowed);
  if (leftOut.length > 0) (decoded.warnings ??= []).push(...leftOut);
  if (betas.length === 0) return;
  const { request } = decoded;
  const options = request.providerOptions ?? {};
  request.providerOptions = { ...options, anthropic: { ...options.anthropic, clientBetas: betas } };
}
