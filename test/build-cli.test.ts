/**
 * The CLI bundle's source maps (`scripts/build-cli.ts`): the dependency code bundled into the CLI is
 * left unmapped (its sources are not shipped), every other mapping is kept as it was.
 */
import { describe, expect, it } from 'vitest';
import { unmapSources } from '../scripts/source-map-unmap.ts';

// Segments: [column, source, line, column] relative; here a.ts, node_modules/x.js, a.ts; x.js; a.ts.
const map = {
  version: 3,
  sources: ['a.ts', 'node_modules/x.js'],
  names: [],
  mappings: 'AAAA,ICAA,IDAC;ACAA;ADCA',
};

describe('unmapSources', () => {
  it('drops a source: its segments keep their column without a source, later ones are renumbered', () => {
    expect(unmapSources(map, (source) => source.includes('node_modules/'))).toEqual({
      version: 3,
      sources: ['a.ts'],
      names: [],
      mappings: 'AAAA,I,IAAC;A;AACA',
    });
  });

  it('keeps a map whose sources are all kept as it is (names included)', () => {
    const named = {
      ...map,
      sources: ['a.ts', 'b.ts'],
      names: ['n'],
      mappings: `AAAAA${map.mappings.slice(4)}`,
    };
    expect(unmapSources(named, () => false)).toEqual(named);
  });
});
