/**
 * One place per fact (#19): the price fields (`priceFields`, src/pricing/types.ts), the finish
 * reasons (`finishReasons`, src/core/finish-reason.ts) and the plain-object guard (`isJsonObject`,
 * src/core/json.ts) are each written once; nothing else in src/ or scripts/ restates the list or
 * keeps a local copy of the guard.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { finishReasons } from '../src/core/finish-reason.ts';
import { isJsonObject } from '../src/core/json.ts';
import { priceFields } from '../src/pricing/types.ts';
import { repoRoot } from './support/fixtures.ts';

/** The hand-written TypeScript files below `folders` (tests and generated data left out), repo-relative. */
function sourceFiles(folders: string[]): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      if (name === 'node_modules' || name === 'results') continue;
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !/\.test\.ts$|\.test-d\.ts$|\.generated\.ts$/.test(name))
        found.push(relative(repoRoot, path));
    }
  };
  for (const folder of folders) walk(join(repoRoot, folder));
  return found;
}

const files = sourceFiles(['src', 'scripts', 'bench']).map((file) => ({
  file,
  source: ts.createSourceFile(file, readFileSync(join(repoRoot, file), 'utf8'), ts.ScriptTarget.Latest, true),
}));
const listsOf = new Map(files.map(({ file, source }) => [file, lists(source)]));

function visitAll(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  node.forEachChild((child) => visitAll(child, visit));
}

/** The name a member of an object literal, interface or type literal is written with, if static. */
function memberName(member: ts.Node): string | undefined {
  if (
    (ts.isPropertyAssignment(member) ||
      ts.isShorthandPropertyAssignment(member) ||
      ts.isPropertySignature(member)) &&
    (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name))
  )
    return member.name.text;
  return undefined;
}

/**
 * The names each list of a file holds: array literals and unions of string literals (`values`),
 * and with `keys` also the keys of object literals, interfaces and type literals.
 */
function lists(source: ts.SourceFile): Array<{ line: number; names: string[]; keys: boolean }> {
  const found: Array<{ line: number; names: string[]; keys: boolean }> = [];
  visitAll(source, (node) => {
    let names: string[] = [];
    const keys = !ts.isArrayLiteralExpression(node) && !ts.isUnionTypeNode(node);
    if (ts.isArrayLiteralExpression(node))
      names = node.elements.filter(ts.isStringLiteralLike).map((element) => element.text);
    else if (ts.isUnionTypeNode(node))
      names = node.types.flatMap((type) =>
        ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal) ? [type.literal.text] : [],
      );
    else if (ts.isObjectLiteralExpression(node))
      names = node.properties.flatMap((member) => memberName(member) ?? []);
    else if (ts.isTypeLiteralNode(node) || ts.isInterfaceDeclaration(node))
      names = node.members.flatMap((member) => memberName(member) ?? []);
    if (names.length > 0)
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, names, keys });
  });
  return found;
}

/** Lists outside `home` that name at least `least` members of `set`. */
function restatements(set: readonly string[], home: string, least: number, keys: boolean): string[] {
  const repeats: string[] = [];
  for (const [file, found] of listsOf) {
    if (file === home) continue;
    for (const { line, names } of found.filter((list) => keys || !list.keys)) {
      const members = names.filter((name) => set.includes(name));
      const named = new Set(members);
      // A list mostly of other names (the agent's outcomes share `completed`, `error`) is another set.
      if (named.size >= least && members.length * 2 > names.length)
        repeats.push(`${file}:${line}: ${[...named].join(', ')}`);
    }
  }
  return repeats;
}

describe('one list per fact', () => {
  it('the price field names are written only in priceFields (src/pricing/types.ts)', () => {
    expect(priceFields).toContain('cache_write_1h_mtok');
    // Two fields together (`{ input_mtok: 0, output_mtok: 0 }`, a free model) are a value, not the list.
    expect(restatements(priceFields, 'src/pricing/types.ts', 3, true)).toEqual([]);
  });

  it('the finish reasons are written only in finishReasons (src/core/finish-reason.ts)', () => {
    expect(finishReasons).toContain('content-filter');
    // A `Record<FinishReason, …>` mapping is exhaustive by its type: object keys are not checked.
    expect(restatements(finishReasons, 'src/core/finish-reason.ts', 3, false)).toEqual([]);
  });
});

/** Whether `body` is only the plain-object test on `parameter` (`typeof v === 'object' && v !== null …`). */
function isObjectTest(body: ts.Node, parameter: string): boolean {
  const expression =
    ts.isBlock(body) && body.statements.length === 1 && ts.isReturnStatement(body.statements[0]!)
      ? body.statements[0].expression
      : ts.isBlock(body)
        ? undefined
        : body;
  if (expression === undefined) return false;
  const text = expression.getText().replace(/\s+/g, ' ');
  const name = parameter.replace(/[$]/g, '\\$&');
  return new RegExp(
    `^typeof ${name} === 'object' && ${name} !== null( && !Array\\.isArray\\(${name}\\))?$`,
  ).test(text);
}

describe('one plain-object guard', () => {
  it('no file but src/core/json.ts writes its own isJsonObject (a type guard that only tests typeof object)', () => {
    const copies: string[] = [];
    for (const { file, source } of files) {
      if (file === 'src/core/json.ts') continue;
      visitAll(source, (node) => {
        // Named helpers: function declarations and functions bound to a name (an inline
        // `.filter((block): block is Block => …)` narrows to its own type and is no helper).
        const named =
          ts.isFunctionDeclaration(node) ||
          ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) &&
            (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent)));
        if (!named) return;
        const parameter = node.parameters[0]?.name;
        if (node.body === undefined || parameter === undefined || !ts.isIdentifier(parameter)) return;
        if (node.type === undefined || !ts.isTypePredicateNode(node.type)) return;
        if (isObjectTest(node.body, parameter.text))
          copies.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
      });
    }
    expect(copies).toEqual([]);
  });

  it('the guard itself: plain objects only', () => {
    expect([{}, { a: 1 }, [], null, 'x', 1, undefined].map((value) => isJsonObject(value))).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
