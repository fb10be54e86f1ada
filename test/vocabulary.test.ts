/**
 * "api" means nothing in our names: the wire protocol an adapter speaks is its *protocol*
 * (`ProtocolId`, `adapter.protocol`) and the config `type` that creates an adapter is a *provider
 * type* (`ProviderTypeDefinition`, `registerProviderType`, `ProviderTypeTable`) — CONTRIBUTING.md,
 * "Words". This test fails when one of the old names comes back anywhere in src/ (tests included).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/fixtures.ts';

const src = join(repoRoot, 'src');

/** Names that said "api" for a protocol or a provider type, with what replaced them. */
const retired: Record<string, string> = {
  ApiId: 'ProtocolId',
  ApiDefinition: 'ProviderTypeDefinition',
  ApiTable: 'ProviderTypeTable',
  ApiCreateOptions: 'ProviderTypeCreateOptions',
  BuiltinApiType: 'BuiltinProviderType',
  registerApi: 'registerProviderType',
  defaultApis: 'defaultProviderTypes',
  createApiTable: 'createProviderTypeTable',
  createLazyApiTable: 'createProviderTypeTable',
  builtinApis: 'builtinProviderTypes',
  createApiAdapter: 'createAdapterOfType',
  emulatedApis: 'emulatedProviderTypes',
  findApi: 'findProviderType',
  loadApiTable: 'loadProviderTypeTable',
  EmulatorApi: 'EmulatorProtocolId',
  emulatorApis: 'emulatorProtocolIds',
  isEmulatorApi: 'isEmulatorProtocolId',
};

/** The one place `api` may still be a name: the CLI's deprecated `--api` alias of `--protocol`. */
const deprecatedAlias = 'cli/commands.ts';

function sourceFiles(folder: string, found: string[] = []): string[] {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) sourceFiles(path, found);
    else if (name.endsWith('.ts') && !name.endsWith('.generated.ts')) found.push(relative(src, path));
  }
  return found;
}

/** `file:line name` for every identifier or property name of `file` that breaks the vocabulary. */
function offences(file: string): string[] {
  const text = readFileSync(join(src, file), 'utf8');
  if (!/\bapi\b|Api/.test(text)) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const where = (node: ts.Node) =>
    `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      const name = node.text;
      if (Object.hasOwn(retired, name)) found.push(`${where(node)} ${name} (now ${retired[name]})`);
      else if (name === 'api' && file !== deprecatedAlias && isPropertyName(node))
        found.push(`${where(node)} .api (now .protocol, or .type for a provider type)`);
    }
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

/** Whether `node` names a property: `x.api`, `{ api: … }`, `{ api }`, `api?: T` in a type. */
function isPropertyName(node: ts.Identifier | ts.PrivateIdentifier): boolean {
  const parent = node.parent;
  return (
    (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
    (ts.isPropertyAssignment(parent) && parent.name === node) ||
    ts.isShorthandPropertyAssignment(parent) ||
    ((ts.isPropertySignature(parent) || ts.isPropertyDeclaration(parent)) && parent.name === node) ||
    (ts.isBindingElement(parent) && (parent.propertyName ?? parent.name) === node)
  );
}

describe('one word per thing: protocol and provider type, never "api"', () => {
  it('no retired api name (ApiId, ApiDefinition, registerApi, adapter.api, …) is back in src/', () => {
    expect(sourceFiles(src).flatMap(offences)).toEqual([]);
  });

  it('the check sees the names it guards against', () => {
    const sample = 'sample.ts';
    const probe = ts.createSourceFile(
      sample,
      'type A = ApiId; const b = adapter.api; const c = { api: 1 }; registerApi(x);',
      ts.ScriptTarget.Latest,
      true,
    );
    const names: string[] = [];
    const visit = (node: ts.Node): void => {
      if (
        ts.isIdentifier(node) &&
        (Object.hasOwn(retired, node.text) || (node.text === 'api' && isPropertyName(node)))
      )
        names.push(node.text);
      node.forEachChild(visit);
    };
    visit(probe);
    expect(names).toEqual(['ApiId', 'api', 'api', 'registerApi']);
  });
});
