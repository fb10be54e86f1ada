import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Tests may import the package by its own name (`switchyard-ai/testing`, …) exactly as users do:
 * each entry of `exports` resolves to the source file its `dist` target is built from.
 */
const manifest = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  name: string;
  exports: Record<string, string | { default: string }>;
};
const selfReference = Object.entries(manifest.exports).flatMap(([entry, target]) => {
  if (typeof target === 'string' || !target.default.endsWith('.js')) return [];
  const source = target.default.replace(/^\.\/dist\//, './src/').replace(/\.js$/, '.ts');
  const find = entry === '.' ? manifest.name : `${manifest.name}/${entry.slice(2)}`;
  return [
    {
      find: new RegExp(`^${find.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')}$`),
      replacement: new URL(source, import.meta.url).pathname,
    },
  ];
});

/**
 * The child processes the tests start (the CLI, gateway instances, MCP servers: Node stripping
 * their TypeScript) share Node's compile cache: `node src/cli/main.ts demo` took 0.95 s of CPU
 * without it, 0.80 s with it warm (2026-11-29).
 */
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'switchyard-test-compile-cache');

/** The suites `npm run test:heavy` runs (see the `heavy` project). */
const heavySuites = [
  'test/package-install.test.ts',
  'test/cli/chat.pty.test.ts',
  'test/gateway/client-timeouts.test.ts',
  'test/gateway/mounted-send-timeout.test.ts',
  // A sick Redis: connections that go silent or answer late, waited out in real time (~40 s).
  'src/state/redis-silent.test.ts',
  'src/state/redis-slow.test.ts',
];

export default defineConfig({
  resolve: { alias: selfReference },
  test: {
    testTimeout: 20_000,
    pool: 'forks',
    // Two workers on the two-core machine (vitest's default is cores − 1 = one): a file waiting on
    // a child process (npm pack, tsc, the CLI, a pty) or a socket leaves the other core to the next file.
    maxWorkers: 2,
    // Every worker process runs many files (isolate: false): each heavy module (zod, undici, the
    // adapters, the emulator) is imported once per worker instead of once per file — with a fresh
    // worker per file, importing took more than half of the integration suites' time. A test that
    // changes process-wide state (env, listeners, globals) restores it.
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          exclude: ['src/providers/common/dormant-call.test.ts', ...heavySuites],
        },
      },
      // Compares V8 hidden classes (%HaveSameMap): in a worker shared with other files, their
      // objects can generalize a field of the compared classes first. A process of its own.
      {
        extends: true,
        test: {
          name: 'hidden-classes',
          include: ['src/providers/common/dormant-call.test.ts'],
          isolate: true,
        },
      },
      // Suites over servers and child processes.
      {
        extends: true,
        test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: heavySuites },
      },
      // The heavy suites (`npm run test:heavy`; `.ci/run` runs them after `npm test`): the packed
      // package (npm pack's clean build, an offline install, three typechecks of a consumer), the
      // chat in a pseudo-terminal (a CLI and an MCP server started per test) — together a third
      // of the suite's CPU —, and the gateway's send and body timeouts against clients that stall
      // (most of their ~40 s is waiting out timeouts and moving 8 MB replies a client never reads),
      // and the Redis store's connections gone silent or late (~40 s waited out).
      { extends: true, test: { name: 'heavy', include: heavySuites } },
    ],
  },
});
