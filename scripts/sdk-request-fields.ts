/**
 * Lists every request field the pinned official SDKs can send (read from their `.d.ts` types with
 * the TypeScript compiler) that the gateway neither reads nor documents: for each protocol, the
 * field paths whose name appears neither in the decoder's source (`src/codecs/<protocol>/` and the
 * shared codec files) nor in the protocol's section of docs/gateway.md. A field the decoder reads
 * is walked into (its own fields are checked); one only documented (ignored, refused) is not.
 *
 *   node scripts/sdk-request-fields.ts            the unclassified fields
 *   node scripts/sdk-request-fields.ts --all      every field path, each marked read / documented / -
 *
 * Subtrees the gateway settles whole (sent as written, or refused: {@link settled}) are not walked.
 * A name check, not a proof: a field whose name the decoder reads elsewhere counts as read. The
 * guard test (test/gateway/sdk-request-fields.test.ts) holds the top-level parameters to the same rule.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

interface Root {
  protocol: 'chat' | 'responses' | 'anthropic' | 'gemini';
  /** The `.d.ts` file, relative to node_modules. */
  file: string;
  /** An exported type, or `Namespace.Name`. */
  name: string;
  /** The path its fields are shown under (`''` for the request body). */
  at: string;
}

const roots: Root[] = [
  {
    protocol: 'chat',
    file: 'openai/resources/chat/completions/completions.d.ts',
    name: 'ChatCompletionCreateParamsBase',
    at: '',
  },
  {
    protocol: 'responses',
    file: 'openai/resources/responses/responses.d.ts',
    name: 'ResponseCreateParamsBase',
    at: '',
  },
  {
    protocol: 'responses',
    file: 'openai/resources/responses/input-tokens.d.ts',
    name: 'InputTokenCountParams',
    at: 'input_tokens',
  },
  {
    protocol: 'anthropic',
    file: '@anthropic-ai/sdk/resources/messages/messages.d.ts',
    name: 'MessageCreateParamsBase',
    at: '',
  },
  {
    protocol: 'anthropic',
    file: '@anthropic-ai/sdk/resources/messages/messages.d.ts',
    name: 'MessageCountTokensParams',
    at: 'count_tokens',
  },
  { protocol: 'gemini', file: '@google/genai/dist/genai.d.ts', name: 'GenerateContentParameters', at: '' },
  // The SDK spreads `config` over the body (`systemInstruction`, `tools`, … at the top, the rest in
  // `generationConfig`): its fields are named as the decoder reads them.
  { protocol: 'gemini', file: '@google/genai/dist/genai.d.ts', name: 'GenerateContentConfig', at: 'config' },
  {
    protocol: 'gemini',
    file: '@google/genai/dist/genai.d.ts',
    name: 'CountTokensParameters',
    at: 'countTokens',
  },
];

/** The decoder's folder and the docs section of each protocol. */
const protocols = {
  chat: { folder: 'openai-chat', heading: '### OpenAI Chat Completions' },
  responses: { folder: 'openai-responses', heading: '### OpenAI Responses' },
  anthropic: { folder: 'anthropic-messages', heading: '### Anthropic Messages' },
  gemini: { folder: 'gemini', heading: '### Gemini' },
} as const;

/**
 * Subtrees settled as a whole (docs/gateway.md), not walked into: sent to their upstream as
 * written, or refused whole.
 */
const settled: Readonly<Record<Root['protocol'], RegExp>> = {
  // `audio` and `moderation` are refused.
  chat: /^(audio|moderation)\./,
  // Built-in tools go to a Responses upstream as written; so do the client-run calls' outputs
  // (elsewhere as a tool result); server-run item types and `prompt` are refused; an earlier
  // output's annotations are read as citations, its logprobs ignored.
  responses:
    /tools\{(?!function\}|custom\}|namespace\})[^}]*\}\.|\{(shell_call_output|local_shell_call_output|apply_patch_call_output)\}\.|input\{(file_search_call|computer_call|computer_call_output|image_generation_call|code_interpreter_call|mcp_[a-z_]+|program|program_output)\}\.|\.annotations\{|\.logprobs\.|^(input_tokens\.)?(prompt|moderation)\./,
  // Anthropic-defined tools, server tool results, citations and callers go to Anthropic as written;
  // a `browser_state` block is refused; `metadata` is ignored; schemas are taken whole.
  anthropic:
    /tools\{(?!custom\})[a-z_0-9]+\}\.|_tool_result\}\.|\.citations\{|\.caller\{|\{browser_state\}\.|^(count_tokens\.)?metadata\.|input_schema[{.]/,
  // Tools other than function declarations and `videoMetadata` are refused; `imageConfig` goes
  // to Gemini as written, `modelArmorConfig` is refused; schemas are converted whole.
  gemini:
    /tools\.(?!functionDeclarations\b)[A-Za-z]+|videoMetadata\.|(imageConfig|modelArmorConfig)\.|functionDeclarations\.(parameters|response)[{.]/,
};

const maxDepth = 5;

function sourceNames(folder: string): Set<string> {
  const files = [
    ...readdirSync(join('src/codecs', folder)).map((file) => join('src/codecs', folder, file)),
    ...readdirSync('src/codecs').map((file) => join('src/codecs', file)),
  ].filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
  const names = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/'([A-Za-z_][A-Za-z0-9_]*)'|\.([A-Za-z_][A-Za-z0-9_]*)\b/g))
      names.add(match[1] ?? match[2] ?? '');
  }
  return names;
}

/** The names in backticks in one protocol's section of docs/gateway.md (`a.b: c` gives a, b, c). */
export function documentedNames(doc: string, heading: string): Set<string> {
  const start = doc.indexOf(heading);
  const end = doc.indexOf('\n### ', start + heading.length);
  const section = doc.slice(start, end === -1 ? undefined : end);
  const names = new Set<string>();
  for (const span of section.matchAll(/`([^`]+)`/g))
    for (const word of (span[1] ?? '').split(/[^A-Za-z0-9_]+/)) if (word !== '') names.add(word);
  return names;
}

interface Field {
  protocol: Root['protocol'];
  path: string;
  name: string;
  read: boolean;
  documented: boolean;
}

function walk(
  checker: ts.TypeChecker,
  type: ts.Type,
  path: string,
  depth: number,
  visit: (path: string, name: string, type: ts.Type) => boolean,
  seen: Set<ts.Type>,
): void {
  if (depth > maxDepth) return;
  const members = type.isUnion() ? type.types : [type];
  for (const member of members) {
    if (checker.isArrayType(member)) {
      const element = checker.getTypeArguments(member as ts.TypeReference)[0];
      if (element !== undefined) walk(checker, element, path, depth, visit, seen);
      continue;
    }
    if (!(member.flags & ts.TypeFlags.Object) || member.getCallSignatures().length > 0) continue;
    if (seen.has(member)) continue;
    const properties = checker.getPropertiesOfType(member);
    const kind = properties.find((property) => property.name === 'type');
    const kindType = kind === undefined ? undefined : checker.getTypeOfSymbol(kind);
    const kinds = (kindType?.isUnion() === true ? kindType.types : kindType === undefined ? [] : [kindType])
      .filter((kind) => kind.isStringLiteral())
      .map((kind) => (kind as ts.StringLiteralType).value);
    const variant = kinds.length === 0 ? '' : `{${kinds.join('|')}}`;
    const inner = new Set(seen).add(member);
    for (const property of properties) {
      // A parameter the SDK sends as a header (Anthropic's `workspace_id`) is no body field.
      if (ts.displayPartsToString(property.getDocumentationComment(checker)).startsWith('Header param:'))
        continue;
      const propertyType = checker.getNonNullableType(checker.getTypeOfSymbol(property));
      const at = `${path}${variant}${path === '' && variant === '' ? '' : '.'}${property.name}`;
      if (visit(at, property.name, propertyType)) walk(checker, propertyType, at, depth + 1, visit, inner);
    }
  }
}

function exportedType(checker: ts.TypeChecker, source: ts.SourceFile, name: string): ts.Type {
  const module = checker.getSymbolAtLocation(source);
  if (module === undefined) throw new Error(`no module symbol for ${source.fileName}`);
  const [head, ...rest] = name.split('.');
  let symbol = checker.getExportsOfModule(module).find((entry) => entry.name === head);
  for (const part of rest) symbol = symbol?.exports?.get(part as ts.__String);
  if (symbol === undefined) throw new Error(`${name} is not exported by ${source.fileName}`);
  return checker.getDeclaredTypeOfSymbol(symbol);
}

/** Every field path under the roots, each marked read (the decoder names it) and documented. */
export function requestFields(): Field[] {
  const files = [...new Set(roots.map((root) => join('node_modules', root.file)))];
  const program = ts.createProgram(files, { skipLibCheck: true, noResolve: false, types: [] });
  const checker = program.getTypeChecker();
  const doc = readFileSync('docs/gateway.md', 'utf8');
  const fields: Field[] = [];
  for (const root of roots) {
    const { folder, heading } = protocols[root.protocol];
    const read = sourceNames(folder);
    const documented = documentedNames(doc, heading);
    const source = program.getSourceFile(join('node_modules', root.file));
    if (source === undefined) throw new Error(`cannot read ${root.file}`);
    const type = exportedType(checker, source, root.name);
    walk(
      checker,
      type,
      root.at,
      0,
      (path, name) => {
        // Inside a settled subtree: classified by it, and not walked further.
        if (settled[root.protocol].test(path)) return false;
        const field = {
          protocol: root.protocol,
          path,
          name,
          read: read.has(name),
          documented: documented.has(name),
        };
        fields.push(field);
        return field.read;
      },
      new Set(),
    );
  }
  return fields;
}

if (import.meta.main) {
  const all = process.argv.includes('--all');
  const fields = requestFields();
  const lines = new Set<string>();
  const seen = new Set<string>();
  for (const field of fields) {
    if (!all && (field.read || field.documented)) continue;
    // A count request's fields are the generation's: each path once, under the generation.
    const own = `${field.protocol} ${field.path.replace(/^(input_tokens|count_tokens|countTokens)\./, '')}`;
    if (!all && seen.has(own)) continue;
    seen.add(own);
    const mark = field.read ? 'read' : field.documented ? 'documented' : '-';
    lines.add(all ? `${field.protocol}\t${mark}\t${field.path}` : `${field.protocol}\t${field.path}`);
  }
  process.stdout.write([...lines].join('\n') + '\n');
}
