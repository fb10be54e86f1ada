/**
 * One table per fact: the provider table (src/providers/common/provider-table.ts) holds each
 * provider's key variables, base URL, base path, protocols, catalog and entry; nothing else in src/
 * spells them as a literal, and the places that use them agree with it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { bundledCatalog } from '../src/providers/catalog/index.ts';
import { basePathOf, providerTable, type ProviderRow } from '../src/providers/common/provider-table.ts';
import { createProviderTypeTable } from '../src/registry/provider-type-table.ts';
import { repoRoot } from './support/fixtures.ts';

const rows = Object.entries(providerTable) as Array<[keyof typeof providerTable, ProviderRow]>;
const src = join(repoRoot, 'src');
const tableFile = 'providers/common/provider-table.ts';

function sourceFiles(folder: string, found: string[] = []): string[] {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) sourceFiles(path, found);
    else if (name.endsWith('.ts') && !/\.test\.ts$|\.generated\.ts$/.test(name))
      found.push(relative(src, path));
  }
  return found;
}

/** Every string literal of a file (comments and doc text are not literals). */
function literals(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(src, file), 'utf8'), ts.ScriptTarget.Latest);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) found.push(node.text);
    else if (ts.isTemplateExpression(node)) found.push(node.head.text);
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

describe('the provider table is the one place of its facts', () => {
  it('no literal in src/ repeats a key variable, base-URL variable or base URL of the table', () => {
    const facts = rows.flatMap(([, row]) => [
      ...row.keyVariables,
      ...row.baseURLVariables.map((variable) => variable.name),
      ...(row.baseURL === undefined ? [] : [row.baseURL]),
    ]);
    const repeats: string[] = [];
    for (const file of sourceFiles(src).filter((file) => file !== tableFile)) {
      for (const literal of literals(file)) {
        const fact = facts.find((fact) =>
          fact.startsWith('https://') ? literal.startsWith(fact) : literal === fact,
        );
        if (fact !== undefined) repeats.push(`${file}: '${literal}' (the table's ${fact})`);
      }
    }
    expect(repeats).toEqual([]);
  });

  it("the provider-type table's key variables and base paths are the table's", () => {
    const providerTypes = createProviderTypeTable();
    const native = {
      anthropic: 'anthropic',
      openai: 'openai',
      'openai-responses': 'openai',
      gemini: 'gemini',
    } as const;
    for (const [type, provider] of Object.entries(native)) {
      const row = providerTypes.get(type)!;
      expect(row.basePath, type).toBe(basePathOf(provider));
      expect(row.keyVariables({ name: provider }), type).toEqual(providerTable[provider].keyVariables);
      expect(providerTable[provider].protocols, type).toContain(row.protocol);
    }
    expect(providerTypes.get('bedrock')!.keyVariables({ name: 'bedrock' })).toEqual(
      providerTable.bedrock.keyVariables,
    );
    expect(providerTypes.get('vertex')!.keyVariables({ name: 'vertex' })).toEqual(
      providerTable.vertex.keyVariables,
    );
  });

  it('every protocol of a row is one a provider-type row speaks', () => {
    const protocols = new Set([...createProviderTypeTable().values()].map((row) => row.protocol));
    const unknown = rows.flatMap(([name, row]) =>
      row.protocols.filter((protocol) => !protocols.has(protocol)).map((protocol) => `${name}: ${protocol}`),
    );
    expect(unknown).toEqual([]);
  });

  it("every row's catalog is bundled and its entry is a package export", () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      name: string;
      exports: Record<string, unknown>;
    };
    for (const [name, row] of rows) {
      expect(bundledCatalog[row.catalog], name).toBeDefined();
      if (row.entry !== undefined)
        expect(Object.keys(manifest.exports), name).toContain(`.${row.entry.slice(manifest.name.length)}`);
    }
  });
});
