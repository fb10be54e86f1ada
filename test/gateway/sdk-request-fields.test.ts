/**
 * Every top-level request parameter the pinned official SDKs (`openai`, `@anthropic-ai/sdk`,
 * `@google/genai`: package.json) can send is classified: read by the protocol's decoder
 * (`src/codecs/<protocol>/` and the shared codec files) or named in the protocol's section of
 * docs/gateway.md (honoured, ignored or refused there). A parameter a newer SDK adds fails here, so
 * an SDK bump is noticed and the new field decided on, not silently dropped (issue #20). The
 * interfaces are read from the `.d.ts` text, not compiled: the versions are pinned, and the
 * TypeScript compiler takes seconds. `node scripts/sdk-request-fields.ts` walks the fields below the
 * top level too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const modules = join(import.meta.dirname, '../../node_modules');
const root = join(import.meta.dirname, '../..');

/**
 * The top-level properties of the interface `name` in a `.d.ts` text: the lines one level inside
 * its braces that declare a property, less those the SDK sends as headers ("Header param:").
 */
function interfaceProperties(text: string, name: string): string[] {
  const [scope, own] = name.includes('.') ? name.split('.') : [undefined, name];
  const from =
    scope === undefined ? 0 : text.search(new RegExp(`^export declare namespace ${scope} \\{$`, 'm'));
  const start = new RegExp(`^( *)(export )?(declare )?interface ${own}\\b[^{]*\\{$`, 'm').exec(
    text.slice(from),
  );
  if (from === -1 || start === null) throw new Error(`interface ${name} not found`);
  const inside = new RegExp(`^${start[1]} {4}([A-Za-z_][A-Za-z0-9_]*)\\??: `);
  const comments = new RegExp(`^${start[1]} {4}(/\\*\\*| \\*)`);
  const lines = text.slice(from + start.index + start[0].length).split('\n');
  const properties: string[] = [];
  let depth = 1;
  let comment = '';
  for (const line of lines) {
    if (depth === 1) {
      const property = inside.exec(line);
      if (property !== null && !comment.includes('Header param:')) properties.push(property[1]!);
      if (comments.test(line)) comment += line;
      else if (property !== null) comment = '';
    }
    for (const character of line.replace(/\/\*.*?\*\/|\/\/.*$|'[^']*'|"[^"]*"/g, ''))
      if (character === '{') depth += 1;
      else if (character === '}') depth -= 1;
    if (depth === 0) return properties;
  }
  throw new Error(`interface ${name} does not end`);
}

const protocols = [
  {
    protocol: 'OpenAI Chat Completions',
    folder: 'openai-chat',
    interfaces: [['openai/resources/chat/completions/completions.d.ts', 'ChatCompletionCreateParamsBase']],
  },
  {
    protocol: 'OpenAI Responses',
    folder: 'openai-responses',
    interfaces: [
      ['openai/resources/responses/responses.d.ts', 'ResponseCreateParamsBase'],
      ['openai/resources/responses/input-tokens.d.ts', 'InputTokenCountParams'],
      // The WebSocket mode's `response.create` (the SDK's `ResponsesWS`): the same fields and its own.
      ['openai/resources/responses/responses.d.ts', 'ResponsesClientEvent.ResponseCreate'],
    ],
  },
  {
    protocol: 'Anthropic Messages',
    folder: 'anthropic-messages',
    interfaces: [
      ['@anthropic-ai/sdk/resources/messages/messages.d.ts', 'MessageCreateParamsBase'],
      ['@anthropic-ai/sdk/resources/messages/messages.d.ts', 'MessageCountTokensParams'],
    ],
  },
  {
    // The SDK's `config` is spread over the body (`systemInstruction`, `tools`, … at the top,
    // the rest in `generationConfig`): its fields are the request's parameters.
    protocol: 'Gemini',
    folder: 'gemini',
    interfaces: [
      ['@google/genai/dist/genai.d.ts', 'GenerateContentParameters'],
      ['@google/genai/dist/genai.d.ts', 'GenerateContentConfig'],
      ['@google/genai/dist/genai.d.ts', 'CountTokensParameters'],
      ['@google/genai/dist/genai.d.ts', 'CountTokensConfig'],
    ],
  },
] as const;

/** The names the decoder's source mentions: string literals and property accesses. */
function decoderNames(folder: string): Set<string> {
  const codecs = join(root, 'src/codecs');
  const files = [
    ...readdirSync(join(codecs, folder)).map((file) => join(codecs, folder, file)),
    ...readdirSync(codecs).map((file) => join(codecs, file)),
  ].filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
  const names = new Set<string>();
  for (const file of files)
    for (const match of readFileSync(file, 'utf8').matchAll(/'([A-Za-z_]\w*)'|\.([A-Za-z_]\w*)\b/g))
      names.add(match[1] ?? match[2]!);
  return names;
}

/** The words in backticks in the section `### heading` of docs/gateway.md. */
function documentedNames(heading: string): Set<string> {
  const doc = readFileSync(join(root, 'docs/gateway.md'), 'utf8');
  const start = doc.indexOf(`### ${heading}\n`);
  if (start === -1) throw new Error(`docs/gateway.md has no section ${heading}`);
  const end = doc.indexOf('\n### ', start + 4);
  const names = new Set<string>();
  for (const span of doc.slice(start, end === -1 ? undefined : end).matchAll(/`([^`]+)`/g))
    for (const word of span[1]!.split(/\W+/)) if (word !== '') names.add(word);
  return names;
}

describe.each(protocols)('$protocol', ({ protocol, folder, interfaces }) => {
  it('every top-level request parameter of the pinned SDK is read by the decoder or named in docs/gateway.md', () => {
    const read = decoderNames(folder);
    const documented = documentedNames(protocol);
    const parameters = interfaces.flatMap(([file, name]) =>
      interfaceProperties(readFileSync(join(modules, file), 'utf8'), name).map((property) => ({
        name,
        property,
      })),
    );
    expect(parameters.length).toBeGreaterThan(4);
    const unclassified = parameters
      .filter(({ property }) => !read.has(property) && !documented.has(property))
      .map(({ name, property }) => `${name}.${property}`);
    expect(unclassified).toEqual([]);
  });
});

it('reads an interface’s own properties, not its members’ nor its header params', () => {
  const text = [
    'export interface Params {',
    '    /**',
    '     * Body param: the model.',
    '     */',
    '    model: string;',
    '    options?: {',
    '        inner?: number;',
    "        brace?: '}';",
    '    };',
    '    /**',
    '     * Header param: sent as a header.',
    '     */',
    '    workspace_id?: string;',
    '    stream?: boolean | null;',
    '}',
  ].join('\n');
  expect(interfaceProperties(text, 'Params')).toEqual(['model', 'options', 'stream']);
});
