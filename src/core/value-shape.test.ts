/** The shape pre-check: cycles, depth, `__proto__` keys and shared-value explosions, named by path, fast on the good path. */
import { describe, expect, it } from 'vitest';
import { approximateSize, findShapeProblem, maxNestingDepth, maxVisitedValues } from './value-shape.ts';

describe('findShapeProblem', () => {
  it('passes ordinary values, shared values and typed arrays', () => {
    const shared = { a: 1 };
    expect(
      findShapeProblem({ x: [shared, shared], y: { z: 'text' }, bytes: new Uint8Array(8) }),
    ).toBeUndefined();
    expect(findShapeProblem('text')).toBeUndefined();
    expect(findShapeProblem(null)).toBeUndefined();
  });

  it('names a cycle by the path where it closes', () => {
    const root: Record<string, unknown> = { transcript: [{ parts: [] }] };
    ((root.transcript as Array<{ parts: unknown[] }>)[0] as { parts: unknown[] }).parts.push(root);
    expect(findShapeProblem(root)).toEqual({
      path: ['transcript', 0, 'parts', 0],
      message: 'circular reference',
    });
  });

  it('names nesting past the limit, even 10,000 levels deep (no stack overflow)', () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 10_000; level++) deep = [deep];
    const problem = findShapeProblem({ value: deep });
    expect(problem?.message).toBe(`nested deeper than ${maxNestingDepth} levels`);
    expect(problem?.path).toHaveLength(maxNestingDepth);
  });

  it('names an own __proto__ key, in objects as JSON.parse makes them', () => {
    const value = JSON.parse('{"tools":[{"input":{"__proto__":{"polluted":true}}}]}') as unknown;
    expect(findShapeProblem(value)).toEqual({
      path: ['tools', 0, 'input', '__proto__'],
      message: 'the key "__proto__" is not allowed',
    });
  });

  it('refuses a small graph of shared values that would be walked 2^40 times, at once', () => {
    let value: unknown = { leaf: true };
    for (let level = 0; level < 40; level++) value = { left: value, right: value };
    // Bounded by the visit budget, not by the 2^40 paths (without it the walk would not end).
    expect(findShapeProblem(value)?.message).toContain(`more than ${maxVisitedValues} nested values`);
  });
});

describe('approximateSize', () => {
  it('is close to the JSON length for text, numbers, nesting and keys, and never recurses', () => {
    const value = { a: 'x'.repeat(1000), b: [1, 2, true, null], c: { d: 'é'.repeat(10) } };
    const json = JSON.stringify(value).length;
    expect(approximateSize(value)).toBeGreaterThanOrEqual(json * 0.9);
    expect(approximateSize(value)).toBeLessThanOrEqual(json * 1.2);
    let deep: unknown = 'leaf';
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(approximateSize(deep)).toBeGreaterThan(200_000);
  });

  it('counts inline bytes as their base64 length', () => {
    expect(approximateSize(new Uint8Array(300))).toBe(400);
  });
});
