/**
 * Bundles the `switchyard` command line (`src/cli/main.ts`, the package's `bin`) into `dist/cli/`
 * (`npm run build` runs it after `tsc`). Start-up is part of the CLI's experience (issue #23): a
 * process that loads ~260 separate modules spends much of its start resolving, reading and linking
 * them, so the CLI ships as `dist/cli/main.js` plus `[name]-[hash].js` chunks beside it, and
 * `switchyard ask` loads about fifteen files. Commands and adapters stay chunks of their own, loaded
 * only when used (`chat`, `serve`, the emulator, each provider's adapter), as the sources' dynamic
 * `import()`s say; two groups merge what always loads together (see `codeSplitting`).
 *
 * Dependencies stay external (installed beside the package, loaded by Node as usual) except those in
 * `bundled`. Their code is left unmapped in the source maps: a bundled dependency's sources are not
 * shipped, and the maps point only at shipped files (`src/`).
 *
 * The library entries (`switchyard-ai`, `switchyard-ai/gateway`, …) are untouched: `tsc` builds them.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Plugin, rolldown } from 'rolldown';
import { type SourceMap, unmapSources } from './source-map-unmap.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<
  'dependencies' | 'peerDependencies' | 'devDependencies',
  Record<string, string> | undefined
>;

/**
 * The dependencies bundled into the CLI: the ones on the path of every question (`zod`, ~95 modules
 * of its own, and `eventsource-parser`) and the YAML parser of `--config` (~75 CommonJS modules when
 * loaded from `node_modules`; bundled, it is still evaluated only on the first YAML text).
 */
const bundled = new Set(['zod', 'eventsource-parser', 'yaml']);

/** Every other package stays an ordinary import, resolved from `node_modules` at run time. */
const external = new Set(
  [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
  ].filter((name) => !bundled.has(name)),
);

/** The package a bare specifier names (`yaml`, `@scope/name` from `@scope/name/sub`). */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * The sources load some packages lazily and synchronously with `createRequire(import.meta.url)(name)`,
 * which a bundler does not follow. For a bundled package that call becomes `require(name)`: the
 * package is bundled as a CommonJS module evaluated on that first call, as lazily as before. The
 * replacement is padded to the same length, so every position (and the source map) stays as it was.
 */
const lazyRequires: Plugin = {
  name: 'lazy-requires',
  transform(code, id) {
    if (!/[\\/]src[\\/].*\.ts$/.test(id) || !code.includes('createRequire(import.meta.url)(')) return null;
    const pattern = /createRequire\(import\.meta\.url\)\((['"])([^'"\n]+)\1\)/g;
    const replaced = code.replace(pattern, (call: string, _quote: string, specifier: string) =>
      bundled.has(packageOf(specifier)) ? `require(${JSON.stringify(specifier)})`.padEnd(call.length) : call,
    );
    return replaced === code ? null : { code: replaced, map: null };
  },
};

const bundle = await rolldown({
  cwd: root,
  input: { main: join(root, 'src/cli/main.ts') },
  platform: 'node',
  // The package's floor (`engines`): nothing in the bundle needs a newer Node.
  transform: { target: 'node22' },
  external: (id) => id.startsWith('node:') || external.has(packageOf(id)),
  plugins: [lazyRequires],
  logLevel: 'warn',
});
const { output } = await bundle.write({
  dir: join(root, 'dist/cli'),
  format: 'esm',
  // Chunks beside the entry: `../../package.json` (the version) resolves the same from each.
  entryFileNames: '[name].js',
  chunkFileNames: '[name]-[hash].js',
  sourcemap: true,
  sourcemapExcludeSources: true,
  codeSplitting: {
    groups: [
      // The commands' front door and everything it imports statically (the registry, routing,
      // prices, zod): every question loads all of it, so it is one file rather than ~30 (each costs
      // a resolve, a read, a compile-cache lookup and a link); `ask`, `chat` and `models` share it.
      { name: 'front-door', test: /[\\/]src[\\/]cli[\\/]chat[\\/]setup\.ts$/, priority: 2 },
      // The HTTP adapter engine every provider adapter shares (transport, retries, SSE).
      { name: 'http-adapter', test: /[\\/]src[\\/]providers[\\/]common[\\/]http-adapter\.ts$/, priority: 1 },
    ],
  },
});
await bundle.close();

// Bundled dependency code is left unmapped: its sources are not shipped (the maps name only `src/`).
// A chunk that only re-exports another (a facade) has no code to map: it gets an empty map, so
// every shipped module has its map.
for (const file of output) {
  if (file.type !== 'chunk') continue;
  const path = join(root, 'dist/cli', `${file.fileName}.map`);
  if (!existsSync(path)) {
    const empty: SourceMap = { version: 3, file: file.fileName, sources: [], names: [], mappings: '' };
    writeFileSync(path, `${JSON.stringify(empty)}\n`);
    appendFileSync(join(root, 'dist/cli', file.fileName), `//# sourceMappingURL=${file.fileName}.map\n`);
    continue;
  }
  const map = JSON.parse(readFileSync(path, 'utf8')) as SourceMap;
  const unmapped = unmapSources(map, (source) => source.includes('/node_modules/'));
  writeFileSync(path, `${JSON.stringify(unmapped)}\n`);
}
