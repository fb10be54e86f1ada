/** `switchyard emulator`: says how to stop it, logs one line per request served, stops cleanly on Ctrl-C. */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/testing/emulator/index.ts';
import { repoRoot } from '../support/fixtures.ts';

const main = join(repoRoot, 'src/cli/main.ts');
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Collects a stream's text and resolves when it matches `pattern` (rejects after 15 s). */
function watch(stream: NodeJS.ReadableStream) {
  let text = '';
  const waiters: Array<() => void> = [];
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    text += chunk;
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    get text() {
      return text;
    },
    async until(pattern: RegExp): Promise<RegExpMatchArray> {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const match = text.match(pattern);
        if (match !== null) return match;
        if (Date.now() > deadline) throw new Error(`no ${pattern} in ${JSON.stringify(text)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
  };
}

describe('switchyard emulator', () => {
  it('prints its URL and how to stop it, one line per request (method, path, status), and stops on SIGINT', async () => {
    const child = spawn(process.execPath, [main, 'emulator', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const stdout = watch(child.stdout);
    const stderr = watch(child.stderr);
    const [, url] = await stdout.until(/^(http:\/\/127\.0\.0\.1:\d+)\n/);
    await stderr.until(/press Ctrl-C to stop\n/);

    const reply = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer test-key' },
      body: JSON.stringify({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(reply.status).toBe(200);
    await reply.text();
    const missing = await fetch(`${url}/no/such/route`);
    await missing.text();
    await stderr.until(/^GET \/no\/such\/route 500 \d+ ms\n/m);

    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exit).toBe(0);
    expect(stdout.text).toBe(`${url}\n`);
    const lines = stderr.text.trimEnd().split('\n');
    expect(lines).toEqual([
      `switchyard emulator: provider wire protocols on ${url} — press Ctrl-C to stop`,
      expect.stringMatching(/^POST \/v1\/chat\/completions 200 \d+ ms$/),
      expect.stringMatching(/^GET \/no\/such\/route 500 \d+ ms$/),
      'switchyard emulator: stopped',
    ]);
  });

  it('a port already in use is one line and exit 1', async () => {
    const busy = await startEmulator();
    try {
      const port = new URL(busy.url).port;
      const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(
          process.execPath,
          [main, 'emulator', '--port', port],
          { timeout: 15_000 },
          (_, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
        );
      });
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr: `switchyard emulator: port ${port} is already in use (try --port 0 for any free port)\n`,
      });
    } finally {
      await busy.close();
    }
  });
});
