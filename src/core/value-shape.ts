/** A stack-safe pre-check of untrusted values: no cycles, no absurd nesting (before zod recurses). */

/** The deepest nesting accepted in a request or transcript (arrays and objects count one level each). */
export const maxNestingDepth = 512;

/** One shape problem with the path to it. */
export interface ShapeProblem {
  path: PropertyKey[];
  message: string;
}

interface Frame {
  value: unknown;
  depth: number;
  key: PropertyKey | undefined;
  parent: Frame | undefined;
  /** Set on the marker frame that removes `value` from the ancestors when its subtree is done. */
  exit: boolean;
}

/**
 * How many objects and arrays one check visits at most. A value shared by several branches is
 * visited (and later serialized) once per branch, so sharing can make a small object graph
 * enormous; past this count the value is refused instead of walked for minutes.
 */
export const maxVisitedValues = 2_000_000;

/**
 * Returns the first circular reference, nesting deeper than `maxDepth`, own `__proto__` key or
 * excess of {@link maxVisitedValues} in `root`, else `undefined`. A value shared by two branches is
 * not a cycle. Typed arrays (inline bytes) are leaves.
 *
 * The good path is one recursive walk without allocation beyond `Object.keys` (its depth is capped,
 * so it cannot overflow the stack; a cycle shows as nesting past the cap); only when that walk finds
 * a problem does {@link locateShapeProblem} walk again to name it and its path (the allocating
 * walk alone was about a quarter of a one-message request's validation in a profile of
 * `node bench/frontdoor.ts`).
 */
export function findShapeProblem(root: unknown, maxDepth = maxNestingDepth): ShapeProblem | undefined {
  if (typeof root !== 'object' || root === null) return undefined;
  const budget = { left: maxVisitedValues };
  if (!hasShapeProblem(root, 0, maxDepth, budget)) return undefined;
  if (budget.left < 0) {
    return {
      path: [],
      message: `more than ${maxVisitedValues} nested values (a shared value counts each time)`,
    };
  }
  return locateShapeProblem(root, maxDepth);
}

/** The allocation-free first pass of {@link findShapeProblem}: true when anything is wrong. */
function hasShapeProblem(value: object, depth: number, maxDepth: number, budget: { left: number }): boolean {
  if (ArrayBuffer.isView(value)) return false;
  if (depth >= maxDepth || --budget.left < 0) return true;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const child: unknown = value[index];
      if (typeof child === 'object' && child !== null && hasShapeProblem(child, depth + 1, maxDepth, budget))
        return true;
    }
    return false;
  }
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    if (key === '__proto__') return true;
    const child = (value as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && hasShapeProblem(child, depth + 1, maxDepth, budget))
      return true;
  }
  return false;
}

/**
 * Walks `root` iteratively (no recursion, so 10,000 levels cannot overflow the stack) and returns
 * the first circular reference, nesting deeper than `maxDepth` or own `__proto__` key with its path.
 */
function locateShapeProblem(root: unknown, maxDepth: number): ShapeProblem | undefined {
  const ancestors = new Set<object>();
  const stack: Frame[] = [{ value: root, depth: 0, key: undefined, parent: undefined, exit: false }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const value = frame.value;
    if (frame.exit) {
      ancestors.delete(value as object);
      continue;
    }
    if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) continue;
    if (ancestors.has(value)) return { path: pathOf(frame), message: 'circular reference' };
    if (frame.depth >= maxDepth) {
      return { path: pathOf(frame), message: `nested deeper than ${maxDepth} levels` };
    }
    ancestors.add(value);
    stack.push({ ...frame, exit: true });
    for (const key of Object.keys(value)) {
      // An own `__proto__` key (JSON.parse makes one) is dropped by every object copy and can
      // swap a prototype when assigned: refused rather than silently lost.
      if (key === '__proto__') {
        return { path: [...pathOf(frame), key], message: 'the key "__proto__" is not allowed' };
      }
      const child = (value as Record<string, unknown>)[key];
      if (typeof child !== 'object' || child === null) continue;
      const index = Array.isArray(value) ? Number(key) : key;
      stack.push({ value: child, depth: frame.depth + 1, key: index, parent: frame, exit: false });
    }
  }
  return undefined;
}

function pathOf(frame: Frame): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let current: Frame | undefined = frame; current?.key !== undefined; current = current.parent) {
    path.unshift(current.key);
  }
  return path;
}

/**
 * About how many bytes `value` takes as JSON, without serializing it: string lengths (keys too),
 * 8 per other scalar, inline bytes as base64. Iterative (no depth limit), no copy of any string —
 * a conversation of large base64 images is sized in time proportional to its parts, not its bytes.
 * Stops counting once past `stopAbove` (the caller only asks whether it is over a limit).
 */
export function approximateSize(value: unknown, stopAbove = Number.POSITIVE_INFINITY): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && size <= stopAbove) {
    const next = stack.pop();
    if (typeof next === 'string') size += next.length + 2;
    else if (typeof next !== 'object' || next === null) size += 8;
    else if (ArrayBuffer.isView(next)) size += Math.ceil(next.byteLength / 3) * 4;
    else if (Array.isArray(next)) {
      size += 2;
      for (let index = 0; index < next.length; index++) stack.push(next[index]);
    } else {
      size += 2;
      for (const key of Object.keys(next)) {
        size += key.length + 4;
        stack.push((next as Record<string, unknown>)[key]);
      }
    }
  }
  return size;
}
