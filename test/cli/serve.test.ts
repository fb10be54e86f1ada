/** `switchyard serve --emulator`: the gateway offline, answered by the emulator, stopped gracefully by SIGTERM. */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/fixtures.ts';

const main = join(repoRoot, 'src/cli/main.ts');
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function collect(stream: NodeJS.ReadableStream): {
  text: () => string;
  until(pattern: RegExp): Promise<RegExpMatchArray>;
} {
  let text = '';
  stream.setEncoding('utf8');
  const listeners: Array<() => void> = [];
  stream.on('data', (chunk: string) => {
    text += chunk;
    for (const wake of listeners.splice(0)) wake();
  });
  return {
    text: () => text,
    async until(pattern) {
      for (let attempt = 0; attempt < 150; attempt++) {
        const match = text.match(pattern);
        if (match !== null) return match;
        await new Promise<void>((resolve) => {
          listeners.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      throw new Error(`no ${pattern} in ${JSON.stringify(text)}`);
    },
  };
}

/** `switchyard serve --emulator` on a free port: the child, its output so far and its URL. */
async function serveEmulator() {
  const child = spawn(process.execPath, [main, 'serve', '--emulator', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const stdout = collect(child.stdout!);
  const stderr = collect(child.stderr!);
  const [, url] = await stdout.until(/^(http:\/\/127\.0\.0\.1:\d+)\n/);
  return { child, stdout, stderr, url: url! };
}

describe('switchyard serve', () => {
  it('--emulator serves every protocol offline with no keys, logs JSON lines, and stops on SIGTERM', async () => {
    const { child, stdout, stderr, url } = await serveEmulator();
    const client = new Anthropic({ baseURL: url, apiKey: 'any', maxRetries: 0 });
    const message = await client.messages.create({
      model: 'gpt-mini',
      max_tokens: 20,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Hello from the Switchyard emulator.' }]);
    const [line] = await stdout.until(/\{"time".*\n/);
    expect(JSON.parse(line)).toMatchObject({
      protocol: 'anthropic-messages',
      model: 'gpt-mini',
      provider: 'openai',
      status: 200,
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr.text()).toContain('switchyard serve: stopped');
  });

  it('a second SIGTERM while draining ends the grace now: a log line, exit 0 (not killed by the signal)', async () => {
    const { child, stderr, url } = await serveEmulator();
    // A request in flight for the whole default grace (10 s): its body is still arriving.
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      'POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"model":',
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const started = performance.now();
    child.kill('SIGTERM');
    await stderr.until(/stopping/);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(stderr.text()).toContain('switchyard serve: second signal: ending the grace period now');
    expect(stderr.text()).toContain('switchyard serve: stopped');
    socket.destroy();
  });

  it('refuses a non-loopback host without gateway keys (exit 1)', async () => {
    const child = spawn(process.execPath, [main, 'serve', '--emulator', '--host', '0.0.0.0', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const stderr = collect(child.stderr!);
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exit) => resolve(exit)));
    expect(code).toBe(1);
    expect(stderr.text()).toMatch(/no gateway keys/);
  });
});
