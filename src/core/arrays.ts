/** Array helpers safe for arrays of any length a client or an upstream may send. */

/**
 * Appends every item of `items` to `target` and returns `target`. Not `target.push(...items)`: a
 * spread passes each item as an argument, and past ~125,000 of them (a 4 MB request's parts, an
 * upstream's citations) V8 throws `RangeError: Maximum call stack size exceeded`.
 */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}
