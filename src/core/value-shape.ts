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
 * Walks `root` iteratively (no recursion, so 10,000 levels cannot overflow the stack) and returns
 * the first circular reference, nesting deeper than `maxDepth` or own `__proto__` key, else `undefined`. A value shared
 * by two branches is not a cycle. Typed arrays (inline bytes) are leaves.
 */
export function findShapeProblem(root: unknown, maxDepth = maxNestingDepth): ShapeProblem | undefined {
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
