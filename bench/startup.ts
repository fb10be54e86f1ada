/**
 * Start-up, side by side, on the built package: the whole-process time and peak RSS of
 * `switchyard ask` answering from the emulator (key and base URL in the environment, as the SDK
 * reads them; and with a YAML `--config`) against a script asking the same with the official
 * `openai` SDK (and `node -e ''` as the floor). Run `npm run build` first, then
 * `npm run bench:startup [-- --rounds N]`. Rounds are interleaved; medians and minimums are printed,
 * with each process's CPU time (user + system: steadier than wall time on a shared machine).
 * `--modules` instead counts the modules each contender loads (one run each, with a load hook).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startEmulator } from '../src/testing/emulator/index.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist/cli/main.js');
if (!existsSync(cli)) {
  console.error('bench/startup.ts: dist/cli/main.js is missing — run `npm run build` first');
  process.exit(2);
}
const roundsFlag = process.argv.indexOf('--rounds');
const rounds = Math.min(50, Math.max(1, roundsFlag === -1 ? 10 : Number(process.argv[roundsFlag + 1]) || 10));
const modules = process.argv.includes('--modules');

const emulator = await startEmulator();
emulator.setDefault({
  type: 'scripted',
  content: [{ type: 'text', text: 'Hello!' }],
  usage: { input: 9, output: 3 },
});
const folder = mkdtempSync(join(tmpdir(), 'switchyard-startup-'));
const config = join(folder, 'switchyard.yaml');
writeFileSync(
  config,
  `adapters:\n  openai: { type: openai, base_url: '${emulator.url}/v1', api_key: bench-key, max_retries: 0 }\n`,
);

/** No key of any provider unless a contender sets one. */
const noKeys = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '' };
const ask = [cli, 'ask', '-m', 'openai:gpt-5-mini', 'Say hello.'];
const contenders: Array<{ name: string; args: string[]; env?: Record<string, string> }> = [
  { name: "node -e '' (floor)", args: ['-e', ''] },
  // As most people run it: the key and base URL in the environment (the SDK reads the same two).
  {
    name: 'switchyard ask (env)',
    args: ask,
    env: { OPENAI_API_KEY: 'bench-key', OPENAI_BASE_URL: `${emulator.url}/v1` },
  },
  // With a YAML config file (`--config`): adds the YAML parser.
  { name: 'switchyard ask (YAML)', args: [...ask.slice(0, 2), '--config', config, ...ask.slice(2)] },
  { name: 'openai SDK script', args: [join(root, 'bench/startup/openai-sdk.mjs'), `${emulator.url}/v1`] },
];

/** Runs one contender to its end; wall milliseconds, peak RSS in MB, and its stdout. */
function measure(
  args: string[],
  env: Record<string, string> = {},
  preload = 'rss.mjs',
): Promise<{ ms: number; rssMb: number; cpuMs: number; stdout: string; fd3: string }> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', pathToFileURL(join(root, 'bench/startup', preload)).href, ...args],
    {
      stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
      env: { ...process.env, ...noKeys, OPENAI_BASE_URL: '', ...env },
    },
  );
  let stdout = '';
  let fd3 = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stdio[3]!.on('data', (chunk) => (fd3 += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill(), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}`));
      else {
        const [rssKb, cpuMs] = fd3.split(' ').map(Number);
        resolve({ ms: performance.now() - started, rssMb: rssKb! / 1024, cpuMs: cpuMs ?? NaN, stdout, fd3 });
      }
    });
  });
}

if (modules) {
  // One run each with a counting load hook (not in the timed runs: the hook costs time itself).
  try {
    console.log('Modules loaded (files and built-ins, through the module loader):');
    for (const contender of contenders) {
      const run = await measure(contender.args, contender.env, 'modules.mjs');
      console.log(`  ${contender.name.padEnd(24)} ${run.fd3}`);
    }
  } finally {
    await emulator.close();
  }
  process.exit(0);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const results = contenders.map(() => ({ ms: [] as number[], rss: [] as number[], cpu: [] as number[] }));
try {
  for (let round = 0; round <= rounds; round++) {
    for (const [index, contender] of contenders.entries()) {
      const run = await measure(contender.args, contender.env);
      if (index > 0 && !run.stdout.includes('Hello!'))
        throw new Error(`${contender.name} printed ${run.stdout}`);
      if (round === 0) continue; // Warm-up: file cache.
      results[index]!.ms.push(run.ms);
      results[index]!.rss.push(run.rssMb);
      results[index]!.cpu.push(run.cpuMs);
    }
  }
} finally {
  await emulator.close();
}
console.log(
  `Node ${process.versions.node}, ${rounds} interleaved rounds (after one warm-up), whole process from spawn to exit:`,
);
for (const [index, contender] of contenders.entries()) {
  const { ms, rss, cpu } = results[index]!;
  console.log(
    `  ${contender.name.padEnd(24)} median ${median(ms).toFixed(0).padStart(4)} ms (min ${Math.min(...ms).toFixed(0)})   CPU median ${median(cpu).toFixed(0).padStart(4)} ms   peak RSS median ${median(rss).toFixed(0)} MB`,
  );
}
const sdk = results.at(-1)!;
for (const [index, contender] of contenders.entries()) {
  if (!contender.name.startsWith('switchyard')) continue;
  const { ms, rss, cpu } = results[index]!;
  console.log(
    `  ${contender.name} / SDK script: time ${(median(ms) / median(sdk.ms)).toFixed(2)} (min ${(Math.min(...ms) / Math.min(...sdk.ms)).toFixed(2)}), CPU ${(median(cpu) / median(sdk.cpu)).toFixed(2)}, peak RSS ${(median(rss) / median(sdk.rss)).toFixed(2)}`,
  );
}
