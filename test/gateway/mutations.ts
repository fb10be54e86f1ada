/**
 * Test support for the gateway's mutation suites (`mutated-requests.test.ts`,
 * `mutated-upstreams.test.ts`): fast-check arbitraries that change a valid JSON value in one to
 * three places (a member deleted, an array item repeated, a value replaced by a hostile one), and
 * the oracle every reply must pass whatever was changed.
 */
import fc from 'fast-check';

/**
 * fast-check's options for a mutation suite: `runs` cases from a fixed seed (a failure replays), or
 * `MUTATION_RUNS` from `MUTATION_SEED` for a longer hunt, or only the counterexample a failure
 * printed (`MUTATION_EXAMPLE='[…]'`; `MUTATION_SHOW=1` prints what was sent and received):
 * `MUTATION_RUNS=20000 MUTATION_SEED=7 npx vitest run test/gateway/mutated-upstreams.test.ts`.
 */
export function propertyOptions<T>(runs: number): fc.Parameters<T> {
  const seed = Number(process.env.MUTATION_SEED ?? 20261129);
  const example = process.env.MUTATION_EXAMPLE;
  if (example !== undefined) return { numRuns: 1, seed, examples: [JSON.parse(example) as T] };
  return { numRuns: Number(process.env.MUTATION_RUNS ?? runs), seed };
}

/** Values that break what a reader assumes of a field: wrong types, extremes, near-misses. */
const hostile = fc.constantFrom<unknown>(
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  2 ** 53 + 1,
  '',
  'x',
  '\ud800',
  '{"a":',
  [],
  {},
  [null],
  [[]],
  { type: null },
  { type: 'zzz' },
  ['x'],
  [{}],
  '12',
  'null',
  { toString: 'x' },
  { constructor: 1 },
  'text',
  'tool_use',
  'function_call',
  'STOP',
);

/** One change at the `at`-th place of a value (taken modulo the number of places). */
export interface Mutation {
  at: number;
  kind: 'delete' | 'repeat' | 'replace';
  value: unknown;
}

export const mutations = fc.array(
  fc.record({
    at: fc.nat(),
    kind: fc.constantFrom<Mutation['kind']>('delete', 'repeat', 'replace'),
    value: fc.oneof(hostile, fc.jsonValue({ maxDepth: 2 })),
  }),
  { minLength: 1, maxLength: 3 },
);

type Path = Array<string | number>;

function places(value: unknown, path: Path = [], out: Path[] = []): Path[] {
  if (path.length > 0) out.push(path);
  if (typeof value === 'object' && value !== null)
    for (const key of Object.keys(value))
      places(
        (value as Record<string, unknown>)[key],
        [...path, Array.isArray(value) ? Number(key) : key],
        out,
      );
  return out;
}

/** A copy of `value` with each mutation applied in turn (a value with no places is replaced whole). */
export function mutate(value: unknown, changes: readonly Mutation[]): unknown {
  let copy = structuredClone(value);
  for (const change of changes) {
    const all = places(copy);
    if (all.length === 0) {
      copy = structuredClone(change.value);
      continue;
    }
    const path = all[change.at % all.length]!;
    let parent = copy as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
    const last = path.at(-1)!;
    if (change.kind === 'delete') {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else if (change.kind === 'repeat' && Array.isArray(parent))
      parent.push(structuredClone(parent[Number(last)]));
    else parent[last] = structuredClone(change.value);
  }
  return copy;
}

/** The upstream's reply in the suites: signed reasoning and one call of the requests' tool `get`. */
export const scriptedCall = {
  type: 'scripted' as const,
  content: [
    { type: 'reasoning' as const, text: 'think', signature: 'c2ln' },
    { type: 'tool-call' as const, name: 'get', input: { a: 'x' } },
  ],
  usage: { input: 3, output: 2 },
};

/** Text that only an internal fault writes: a JavaScript error's name or message, or a stack frame. */
export const internalFault =
  /TypeError|ReferenceError|RangeError|Cannot read|is not a function|is not iterable|undefined is not|\[object Object\]|at file:|\.ts:\d+:\d+/;

/**
 * Whether a 200 streamed reply ended as its protocol ends one — its terminator, or its in-band
 * error form — rather than stopping as if complete.
 */
export function endsAsItsProtocolDoes(path: string, body: string): boolean {
  if (path.startsWith('/v1/chat/completions'))
    return body.includes('data: [DONE]') || body.includes('"error"');
  if (path.startsWith('/v1/messages'))
    return body.includes('event: message_stop') || body.includes('event: error');
  if (path.startsWith('/v1/responses'))
    return /event: response\.(completed|failed|incomplete)|event: error/.test(body);
  if (path.startsWith('/v1beta/')) return /"finishReason"|"error"/.test(body);
  return /event: (finish|error)/.test(body);
}
