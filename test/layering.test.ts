/**
 * The layering of src/ on resolved import paths (type imports included): every folder has a row in
 * `layers` (eslint.config.js), imports only what its row allows, and nothing imports in a cycle —
 * neither one file through others back to itself nor one folder through others back to itself.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/fixtures.ts';

const { layers, expandLayers } = (await import(join(repoRoot, 'eslint.config.js'))) as {
  layers: Record<string, string[]>;
  expandLayers(allowed: string[]): string[];
};

const testOnly = /\.test\.ts$|\.test-d\.ts$|(^|\/)test-(support|provider|server)\.ts$/;
const src = join(repoRoot, 'src');

function sourceFiles(folder: string, found: string[] = []): string[] {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) sourceFiles(path, found);
    else if (name.endsWith('.ts') && !testOnly.test(name)) found.push(relative(src, path));
  }
  return found;
}

/** The layer of a file: `providers/<name>` for provider folders, the top folder otherwise, `root` for src/*.ts. */
function layerOf(file: string): string {
  const parts = file.split('/');
  if (parts.length === 1) return 'root';
  return parts[0] === 'providers' ? `providers/${parts[1]}` : parts[0]!;
}

const files = sourceFiles(src);
/** file → the src files it imports (static, dynamic and type imports, re-exports). */
const imports = new Map(
  files.map((file) => {
    const info = ts.preProcessFile(readFileSync(join(src, file), 'utf8'), true, true);
    const targets = info.importedFiles
      .map((entry) => entry.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(src, resolve(dirname(join(src, file)), name)))
      .filter((target) => !target.startsWith('..') && existsSync(join(src, target)));
    return [file, targets] as const;
  }),
);

/**
 * File cycles left in place, each with its reason. A provider's `reader.ts` (ResponseReader) maps
 * finish reasons and usage with `response.ts`'s `mapFinishReason`/`convertUsage`, and
 * `response.ts`'s `parseResponse` drives the reader: the file contract (CONTRIBUTING.md, item 2)
 * puts those names in those files in every provider folder, so the fix is a contract change.
 */
const knownFileCycles = [
  'providers/gemini/reader.ts providers/gemini/response.ts',
  'providers/openai-chat/reader.ts providers/openai-chat/response.ts',
  'providers/openai-responses/reader.ts providers/openai-responses/response.ts',
];

/** Strongly connected components with more than one member (Tarjan). */
function cycles(graph: Map<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('the layers of src/', () => {
  it('every src folder has a row in layers (eslint.config.js)', () => {
    const missing = [...new Set(files.map(layerOf))].filter((layer) => !(layer in layers));
    expect(missing).toEqual([]);
  });

  it('every import stays within what its folder’s row allows', () => {
    const violations: string[] = [];
    for (const [file, targets] of imports) {
      const from = layerOf(file);
      const allowed = expandLayers(layers[from] ?? []);
      for (const target of targets) {
        const to = layerOf(target);
        if (to !== from && !allowed.includes(to)) violations.push(`${file} → ${target} (${from} → ${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('src/core does no I/O: only the default logger (logger.ts) reads the environment and writes stderr', () => {
    const io = /\bprocess\.|from 'node:(fs|net|http|https|child_process)|\bfetch\(/;
    const doing = files
      .filter((file) => layerOf(file) === 'core' && file !== 'core/logger.ts')
      .filter((file) => io.test(readFileSync(join(src, file), 'utf8')));
    expect(doing).toEqual([]);
  });

  it('no file imports itself through others', () => {
    expect(cycles(imports).filter((cycle) => !knownFileCycles.includes(cycle.join(' ')))).toEqual([]);
  });

  it('the known file cycles still exist (remove a row once it is broken)', () => {
    const found = cycles(imports).map((cycle) => cycle.join(' '));
    expect(knownFileCycles.filter((cycle) => !found.includes(cycle))).toEqual([]);
  });

  it('no folder imports itself through others', () => {
    const folders = new Map<string, Set<string>>();
    for (const [file, targets] of imports) {
      const from = layerOf(file);
      const edges = folders.get(from) ?? folders.set(from, new Set()).get(from)!;
      for (const target of targets) if (layerOf(target) !== from) edges.add(layerOf(target));
    }
    expect(cycles(new Map([...folders].map(([folder, edges]) => [folder, [...edges]])))).toEqual([]);
  });
});
