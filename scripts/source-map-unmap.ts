/**
 * Drops sources from a source map (version 3): the segments that point into a dropped source become
 * unmapped (generated column only), the other sources are renumbered. `scripts/build-cli.ts` uses it
 * for the dependency code it bundles, whose sources the package does not ship.
 */

/** The fields of a version 3 source map this rewrites (others are kept as they are). */
export interface SourceMap {
  version: number;
  sources: string[];
  names: string[];
  mappings: string;
  [field: string]: unknown;
}

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The numbers of one Base64 VLQ segment. */
function decodeSegment(text: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const character of text) {
    const digit = alphabet.indexOf(character);
    if (digit === -1) throw new Error(`invalid source map character '${character}'`);
    value += (digit & 31) * 2 ** shift;
    shift += 5;
    if ((digit & 32) === 0) {
      values.push(value % 2 === 1 ? -(value - 1) / 2 : value / 2);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

function encodeValue(value: number): string {
  let rest = value < 0 ? -value * 2 + 1 : value * 2;
  let text = '';
  do {
    const digit = rest % 32;
    rest = Math.floor(rest / 32);
    text += alphabet[rest > 0 ? digit | 32 : digit];
  } while (rest > 0);
  return text;
}

/** `map` without the sources `drop` selects; the segments that pointed into them are left unmapped. */
export function unmapSources(map: SourceMap, drop: (source: string) => boolean): SourceMap {
  const renumbered: number[] = [];
  const sources: string[] = [];
  for (const source of map.sources) {
    renumbered.push(drop(source) ? -1 : sources.length);
    if (!drop(source)) sources.push(source);
  }
  // Absolute values across the whole mapping (source, line, column, name), before and after.
  const read = [0, 0, 0, 0];
  const written = [0, 0, 0, 0];
  const lines = map.mappings.split(';').map((line) => {
    let column = 0;
    let writtenColumn = 0;
    return line
      .split(',')
      .filter((segment) => segment !== '')
      .map((segment) => {
        const fields = decodeSegment(segment);
        column += fields[0]!;
        const absolute = fields.slice(1).map((delta, index) => (read[index]! += delta));
        let text = encodeValue(column - writtenColumn);
        writtenColumn = column;
        const source = absolute.length > 0 ? renumbered[absolute[0]!]! : -1;
        if (source === -1) return text;
        const values = [source, ...absolute.slice(1)];
        values.forEach((value, index) => {
          text += encodeValue(value - written[index]!);
          written[index] = value;
        });
        return text;
      })
      .join(',');
  });
  return { ...map, sources, mappings: lines.join(';') };
}
