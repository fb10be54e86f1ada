/** Tests import the package by its own name; tsconfig `paths` must follow package.json `exports`. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (file: string) => JSON.parse(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'));

describe('package self-reference', () => {
  it('maps every code entry of package.json exports, and only those, to its source in tsconfig paths', () => {
    const manifest = read('package.json') as {
      name: string;
      exports: Record<string, string | { default: string }>;
    };
    const expected = Object.fromEntries(
      Object.entries(manifest.exports).flatMap(([entry, target]) =>
        typeof target === 'string'
          ? []
          : [
              [
                entry === '.' ? manifest.name : `${manifest.name}/${entry.slice(2)}`,
                [target.default.replace('./dist/', './src/').replace(/\.js$/, '.ts')],
              ],
            ],
      ),
    );
    expect(read('tsconfig.json').compilerOptions.paths).toEqual(expected);
  });
});
