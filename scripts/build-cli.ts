/**
 * Bundles the `switchyard` command line (`src/cli/main.ts`, the package's `bin`) into `dist/cli/`
 * (`npm run build` runs it after `tsc`). Start-up is part of the CLI's experience (issue #23): a
 * process that loads ~260 separate modules spends much of its start resolving, reading and linking
 * them, so the CLI ships as one entry plus chunks — `dist/cli/main.js` and its `[name]-[hash].js`
 * chunks beside it. Each command's code stays a chunk of its own, loaded only when that command
 * runs (`chat`, `serve`, the emulator, each provider's adapter), exactly as the sources' dynamic
 * `import()`s say.
 *
 * Dependencies stay external (installed beside the package, loaded by Node as usual) except the ones
 * every question runs through and that are plain ES modules: `zod` (~95 modules of its own) and
 * `eventsource-parser`. Their code is bundled without source mappings: a bundled dependency's
 * sources are not shipped, and the maps point only at shipped files (`src/`).
 *
 * The library entries (`switchyard-ai`, `switchyard-ai/gateway`, …) are untouched: `tsc` builds them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { type SourceMap, unmapSources } from './source-map-unmap.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<
  'dependencies' | 'peerDependencies' | 'devDependencies',
  Record<string, string> | undefined
>;

/**
 * The dependencies bundled into the CLI: the ones on the path of every question (`zod`,
 * `eventsource-parser`) and the YAML parser of `--config` (~75 CommonJS modules when loaded
 * from `node_modules`; bundled, it stays lazy: evaluated on the first YAML text).
 */
const bundled = new Set(['zod', 'eventsource-parser', 'yaml']);

/** Every other package stays an ordinary import, resolved from `node_modules` at run time. */
const external = [
  ...Object.keys(manifest.dependencies ?? {}),
  ...Object.keys(manifest.peerDependencies ?? {}),
  ...Object.keys(manifest.devDependencies ?? {}),
].filter((name) => !bundled.has(name));

/** The package a bare specifier names (`yaml`, `@scope/name` from `@scope/name/sub`). */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * The sources load some packages lazily and synchronously with `createRequire(import.meta.url)(name)`,
 * which a bundler cannot follow. For a bundled package that call becomes `require(name)`: esbuild
 * then bundles the package as a module evaluated on that first call, as lazily as before.
 */
const lazyRequires: Plugin = {
  name: 'lazy-requires',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const pattern = /createRequire\(import\.meta\.url\)\((['"])([^'"]+)\1\)/g;
      if (!pattern.test(text)) return undefined;
      const contents = text.replace(pattern, (call: string, _quote: string, specifier: string) =>
        bundled.has(packageOf(specifier)) ? `require(${JSON.stringify(specifier)})` : call,
      );
      return { contents, loader: 'ts' };
    });
  },
};

/**
 * Bundled CommonJS code (`yaml`) requires Node built-ins (`process`, `buffer`); an ES module has no
 * `require`, so each chunk gets one, made on its first call.
 */
const requireBanner =
  "import { createRequire as __createRequire } from 'node:module';\n" +
  'let __require_of_chunk;\n' +
  'const require = (id) => (__require_of_chunk ??= __createRequire(import.meta.url))(id);';

const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/main.ts'],
  outdir: 'dist/cli',
  // Chunks beside the entry: `../../package.json` (the version) resolves the same from each.
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external,
  sourcemap: true,
  sourcesContent: false,
  banner: { js: requireBanner },
  plugins: [lazyRequires],
  logLevel: 'warning',
  metafile: true,
});
const files = Object.keys(result.metafile.outputs).filter((path) => path.endsWith('.js'));
// Bundled dependency code is left unmapped: its sources are not shipped (the maps name only `src/`).
for (const file of files) {
  const path = join(root, `${file}.map`);
  const map = JSON.parse(readFileSync(path, 'utf8')) as SourceMap;
  writeFileSync(
    path,
    `${JSON.stringify(unmapSources(map, (source) => source.includes('/node_modules/')))}\n`,
  );
}
