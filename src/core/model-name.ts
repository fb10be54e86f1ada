/**
 * Model-name grammar: the one table saying which wire model names each wire protocol accepts, the
 * check every adapter and the registry run before a name reaches a URL, a body or a log line, and
 * the per-segment encoding of names put in a URL path. A name from a stranger (a gateway client, a
 * conversation snapshot) either matches its provider's grammar or is refused with an
 * `InvalidRequestError` (`invalid_model_name`) before any request.
 */
import type { ProtocolId } from './adapter.ts';
import { InvalidRequestError } from './errors/invalid-request-error.ts';
import { quoteInput } from './input-check.ts';

/** A name quoted for a message: cut, escaped, and every non-printable or non-ASCII character as `\\uXXXX`. */
export function quoteModelName(name: string): string {
  return quoteInput(name).replace(
    /[^\x20-\x7e]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** How a wire protocol's model names look. */
export interface ModelNameGrammar {
  /** Matches a whole valid wire name (ASCII only: no control characters, no look-alikes). */
  pattern: RegExp;
  /** What a valid name looks like, for the error message. */
  description: string;
}

/** The longest wire model name any adapter takes (Bedrock inference-profile ARNs are ~200). */
export const maxWireModelNameLength = 256;

/**
 * One path segment of a hierarchical name: starts with a letter, digit, `@` or `_` (so never `.` or
 * `..`), then letters, digits and `. _ : @ + -`. No `/ \ ? # %`, spaces or anything non-ASCII.
 */
const segment = '[A-Za-z0-9@_][A-Za-z0-9._:@+-]*';

/** Names with `/`-separated segments (`meta-llama/Llama-3.3-70B`, `accounts/x/models/y`, `qwen3:8b`). */
const pathNames: ModelNameGrammar = {
  pattern: new RegExp(`^${segment}(?:/${segment})*$`),
  description: 'segments of letters, digits and . _ : @ + - separated by single slashes',
};

/** The model-name grammar of each wire protocol; protocols not listed take {@link defaultModelNameGrammar}. */
export const modelNameGrammars: Readonly<Record<string, ModelNameGrammar>> = {
  // `claude-sonnet-4-5-20250929`; never a path (`@` and `:` for dated / versioned host ids).
  'anthropic-messages': {
    pattern: /^[A-Za-z0-9][A-Za-z0-9._:@+-]*$/,
    description: 'letters, digits and . _ : @ + - (no slashes)',
  },
  // `gemini-2.5-flash`, `models/gemini-2.5-flash`, `tunedModels/my-model-1`: put in the URL path,
  // before `:generateContent`, so no `:` and one optional collection.
  gemini: {
    pattern: /^(?:(?:models|tunedModels)\/)?[A-Za-z0-9][A-Za-z0-9._-]*$/,
    description: 'letters, digits and . _ - after an optional models/ or tunedModels/',
  },
  'openai-chat': pathNames,
  'openai-responses': pathNames,
  // `anthropic.claude-sonnet-4-5-20250929-v1:0`, `us.amazon.nova-pro-v1:0`, or an ARN
  // (`arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4`): one URL path
  // segment, encoded whole (`:` → %3A, `/` → %2F) and encoded again for SigV4.
  'bedrock-converse': bedrockNames(),
  'bedrock-invoke': bedrockNames(),
  // `gemini-2.5-flash`, `claude-sonnet-4-5@20250929`, `meta/llama-3.3-70b-instruct-maas`: a model
  // of a publisher, before `:generateContent` or `:rawPredict`, so no `:`; at most one `/`, after a
  // publisher id (lower case, digits, `-`: `deepseek-ai`), and the model never starts with `.`.
  vertex: {
    pattern: /^(?:[a-z0-9][a-z0-9-]*\/)?[A-Za-z0-9][A-Za-z0-9._-]*(?:@[A-Za-z0-9._-]+)?$/,
    description:
      'an optional publisher/ then letters, digits and . _ - with an optional @version (no other slashes, no colons)',
  },
};

/** Bedrock model ids and ARNs. */
function bedrockNames(): ModelNameGrammar {
  const id = '[A-Za-z0-9][A-Za-z0-9._-]*(?::[A-Za-z0-9._-]+)*';
  const arn =
    'arn:aws(?:-[a-z]+)*:bedrock:[a-z0-9-]*:[0-9]{0,12}:[a-z-]+/[A-Za-z0-9][A-Za-z0-9._-]*(?:[:/][A-Za-z0-9._-]+)*';
  return {
    pattern: new RegExp(`^(?:${arn}|${id})$`),
    description: 'a Bedrock model id (letters, digits, . _ - and :version) or a bedrock ARN',
  };
}

/** The grammar of protocols without a row of their own (registered provider types). */
export const defaultModelNameGrammar: ModelNameGrammar = pathNames;

/** The grammar of `protocol` (a wire protocol). */
export function modelNameGrammar(protocol: ProtocolId | undefined): ModelNameGrammar {
  return (protocol === undefined ? undefined : modelNameGrammars[protocol]) ?? defaultModelNameGrammar;
}

/** Why `name` is not a valid wire name of `protocol`, or `undefined` when it is. */
export function modelNameProblem(name: string, protocol: ProtocolId | undefined): string | undefined {
  if (typeof name !== 'string' || name === '') return 'the model name is empty';
  if (name.length > maxWireModelNameLength) {
    return `the model name is longer than ${maxWireModelNameLength} characters`;
  }
  const grammar = modelNameGrammar(protocol);
  return grammar.pattern.test(name) ? undefined : `expected ${grammar.description}`;
}

/**
 * Throws an `InvalidRequestError` (`invalid_model_name`) unless `name` is a valid wire model name
 * of `protocol`. `provider` names the adapter in the message; the name is quoted (escaped, cut).
 */
export function assertModelName(name: string, protocol: ProtocolId | undefined, provider?: string): void {
  const problem = modelNameProblem(name, protocol);
  if (problem === undefined) return;
  throw new InvalidRequestError({
    message: `${provider === undefined ? '' : `${provider}: `}invalid model name ${quoteModelName(String(name))}: ${problem}`,
    ...(provider === undefined ? {} : { provider }),
    providerCode: 'invalid_model_name',
  });
}

/** `path` with each `/`-separated segment percent-encoded (`tunedModels/a b` → `tunedModels/a%20b`). */
export function encodePathSegments(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}
