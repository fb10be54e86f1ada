/**
 * Upstream URLs and addresses, and the operator's account at the provider (its organization and
 * project ids, its organization-wide usage), left out of what a gateway's client reads. The
 * library's own errors keep the whole text: the caller of the library holds the account.
 */

/** `POST https://host/path` in an adapter's message: the upstream call it describes. */
const upstreamCall = /\b(?:GET|POST|PUT|PATCH|DELETE|HEAD) (?:https?|wss?):\/\/\S+/g;
/** A URL, up to a space, a quote or a closing bracket (a URL in parentheses keeps its `)`). */
const anyUrl = /\b(?:https?|wss?):\/\/[^\s"'<>)\]]+/g;
/**
 * A bare address with a port (`10.0.0.7:8443`, `[::1]:8080`, `localhost:4000`,
 * `vllm-01.corp.internal:8000`), as an echoed `Host` or a proxy's message shows it.
 */
// A dotted name starts only where no name character precedes it: without the lookbehind, a run
// like `a-a-a-…` was tried from every word boundary (quadratic: 32,000 characters took 2 s).
const hostAndPort =
  /(?:\b(?:\d{1,3}\.){3}\d{1,3}|\[[\da-f:.]+\]|\blocalhost|(?<![\w.-])[a-z\d-]+(?:\.[a-z\d-]+)*\.[a-z][a-z\d-]*):\d{1,5}\b/gi;
/** A bare IPv4 address (`peer 10.9.8.7`): some host of the operator's network. */
const bareIpv4 = /\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b/g;
/** A socket or DNS error's code and the host or address after it (`connect ECONNREFUSED 10.0.0.7:8080`). */
const socketAddress =
  /\b(E(?:CONNREFUSED|CONNRESET|CONNABORTED|NOTFOUND|AI_[A-Z]+|TIMEDOUT|HOSTUNREACH|NETUNREACH|HOSTDOWN|ADDRNOTAVAIL|ADDRINUSE|PIPE|PROTO)) \S+/g;

/**
 * An OpenAI organization or project id (`org-Abc123XyZ`, `proj_abc123`): random letters and digits,
 * a digit among them, not inside a longer name (`ft:gpt-4.1-mini:acme-org-research::…` is a model).
 */
const openaiAccountId = /(?<![\w.:-])(?:org-|proj_)(?=[A-Za-z]*\d)[A-Za-z\d]{6,}\b/g;
/** A UUID after `organization` or `workspace` (Anthropic's `for your organization (5a1b2c3d-…)`). */
const accountUuid =
  /\b((?:organization|organisation|org|workspace|project)\W{1,3})[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}\b/gi;
/** What the organization has used of its limit (OpenAI's `Limit 200000, Used 199500`): every tenant's calls together. */
const accountUsage = /(\bLimit [\d,.]+[kKmM]?, )Used [\d,.]+[kKmM]?\b/g;

/** The most characters of an adapter's message a client reads. */
const maxShownLength = 2000;

/** Whether `message` names the operator's account at the provider ({@link withoutUpstreamAddresses} leaves it out). */
export function namesUpstreamAccount(message: string): boolean {
  return (
    new RegExp(openaiAccountId.source).test(message) || new RegExp(accountUuid.source, 'i').test(message)
  );
}

/**
 * An adapter's message as a client may read it (its first 2,000 characters): the upstream's URL
 * and socket address, the operator's organization and project ids and its organization-wide usage
 * left out (an operator's private base URL or host, or its account, is not the client's business);
 * what failed and why stays.
 */
export function withoutUpstreamAddresses(message: string): string {
  // An upstream's message may be megabytes (an in-stream error event): a client reads its head.
  return (message.length > maxShownLength ? `${message.slice(0, maxShownLength)}…` : message)
    .replace(upstreamCall, 'the upstream request')
    .replace(anyUrl, '<upstream URL>')
    .replace(socketAddress, '$1')
    .replace(hostAndPort, '<upstream host>')
    .replace(bareIpv4, '<upstream host>')
    .replace(openaiAccountId, '<account id>')
    .replace(accountUuid, '$1<account id>')
    .replace(accountUsage, '$1Used <left out>');
}
