/**
 * `node heap-summary.ts FILE.heapsnapshot [TOP] [--retainers=NAME]`: self size and count per node
 * type and constructor (strings grouped by kind), largest first, from a V8 heap snapshot (e.g.
 * `concurrency.ts --heap-snapshot=MS`). With `--retainers=NAME`, the nodes named NAME are grouped
 * by their chain of first non-weak retainers (four levels), to show who keeps them.
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const positional = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const retainersOf = process.argv.find((argument) => argument.startsWith('--retainers='))?.slice(12);
const [file, topArgument] = positional;
if (file === undefined)
  throw new Error('usage: node heap-summary.ts FILE.heapsnapshot [TOP] [--retainers=NAME]');
const top = Number(topArgument ?? 40) || 40;
const data = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
const { meta } = data.snapshot;
const types = meta.node_types[0];
const width = meta.node_fields.length;
const [typeAt, nameAt, sizeAt, edgeCountAt] = ['type', 'name', 'self_size', 'edge_count'].map((field) =>
  meta.node_fields.indexOf(field),
) as [number, number, number, number];
/** Types whose name is content (a string's text, a number), not a constructor: grouped by type only. */
const byTypeOnly = new Set(['string', 'concatenated string', 'sliced string', 'number', 'bigint', 'code']);
const nodeCount = data.nodes.length / width;

function label(node: number): string {
  const type = types[data.nodes[node * width + typeAt] as number] as string;
  const name = data.strings[data.nodes[node * width + nameAt] as number] as string;
  return byTypeOnly.has(type) ? `(${type})` : `${type}: ${name.slice(0, 50)}`;
}

function printTop(groups: Map<string, { count: number; bytes: number }>): void {
  const rows = [...groups.entries()].sort((left, right) => right[1].bytes - left[1].bytes).slice(0, top);
  for (const [key, { count, bytes }] of rows)
    console.log(`${(bytes / 1048576).toFixed(2).padStart(8)} MB ${String(count).padStart(9)}  ${key}`);
}

function add(groups: Map<string, { count: number; bytes: number }>, key: string, bytes: number): void {
  const group = groups.get(key) ?? { count: 0, bytes: 0 };
  group.count++;
  group.bytes += bytes;
  groups.set(key, group);
}

const groups = new Map<string, { count: number; bytes: number }>();
let total = 0;
for (let node = 0; node < nodeCount; node++) {
  const size = data.nodes[node * width + sizeAt] as number;
  add(groups, label(node), size);
  total += size;
}
console.log(`total self size ${(total / 1048576).toFixed(1)} MB in ${nodeCount} nodes`);
printTop(groups);

if (retainersOf !== undefined) {
  const edgeWidth = meta.edge_fields.length;
  const edgeTypes = meta.edge_types[0];
  const weak = edgeTypes.indexOf('weak');
  const toAt = meta.edge_fields.indexOf('to_node');
  const edgeTypeAt = meta.edge_fields.indexOf('type');
  const retainer = new Int32Array(nodeCount).fill(-1);
  let edge = 0;
  for (let node = 0; node < nodeCount; node++) {
    const count = data.nodes[node * width + edgeCountAt] as number;
    for (let index = 0; index < count; index++, edge += edgeWidth) {
      if (data.edges[edge + edgeTypeAt] === weak) continue;
      const target = (data.edges[edge + toAt] as number) / width;
      if (retainer[target] === -1) retainer[target] = node;
    }
  }
  const chains = new Map<string, { count: number; bytes: number }>();
  for (let node = 0; node < nodeCount; node++) {
    if (!label(node).endsWith(retainersOf)) continue;
    const path: string[] = [];
    for (
      let current = retainer[node] as number, depth = 0;
      current >= 0 && depth < Number(process.env.DEPTH ?? 4);
      depth++
    ) {
      path.push(label(current));
      current = retainer[current] as number;
    }
    add(chains, path.join(' ← '), data.nodes[node * width + sizeAt] as number);
  }
  console.log(`\nretainers of ${retainersOf}:`);
  printTop(chains);
}
