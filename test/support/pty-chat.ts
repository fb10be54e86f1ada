/** Drives `switchyard chat` in a real pseudo-terminal (@lydell/node-pty) against an emulator the test controls. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type IPty } from '@lydell/node-pty';
import type { Emulator } from '../../src/testing/emulator/index.ts';
import { repoRoot } from './fixtures.ts';

/** The CLI entry, run with this Node (which strips the TypeScript). */
export const cliEntry = join(repoRoot, 'src/cli/main.ts');

// eslint-disable-next-line no-control-regex
const ansi = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[78=>]|\r/g;

/** Terminal output without escape sequences and carriage returns. */
export function plain(text: string): string {
  return text.replace(ansi, '');
}

/** The environment of a chat under test: no provider key, its own data folder. */
export function chatEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/API_KEY$/.test(name)) env[name] = value;
  }
  return { ...env, SWITCHYARD_DATA_DIR: dataDir, TERM: 'xterm-256color', ...extra };
}

/** A config pointing Anthropic, OpenAI and Gemini at `emulator`, with the test MCP server as `calc`. */
export function writeChatConfig(emulator: Emulator, folder: string, mcp = true): string {
  const adapter = (type: string, path: string) =>
    `  ${type}: { type: ${type}, base_url: '${emulator.url}${path}', api_key: test-key, max_retries: 0 }`;
  const lines = [
    'adapters:',
    adapter('anthropic', '/v1'),
    adapter('openai', '/v1'),
    adapter('gemini', '/v1beta'),
  ];
  if (mcp) {
    lines.push(
      'mcp_servers:',
      `  calc: { command: '${process.execPath}', args: ['${join(repoRoot, 'test/support/mcp-server.ts')}', '--stdio'] }`,
    );
  }
  const path = join(folder, 'switchyard.yaml');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** A fresh temporary folder. */
export function temporaryFolder(): string {
  return mkdtempSync(join(tmpdir(), 'switchyard-chat-'));
}

/** A chat running in a pseudo-terminal. */
export class PtyChat {
  /** Chats not exited yet (for the tests' cleanup). */
  static readonly running = new Set<PtyChat>();
  readonly pty: IPty;
  output = '';
  exitCode: number | undefined;
  private readonly exited: Promise<number>;
  private waiters: Array<() => void> = [];

  constructor(args: string[], env: Record<string, string>, size = { columns: 100, rows: 30 }) {
    this.pty = spawn(process.execPath, [cliEntry, 'chat', ...args], {
      name: 'xterm-256color',
      cols: size.columns,
      rows: size.rows,
      cwd: repoRoot,
      env,
    });
    PtyChat.running.add(this);
    this.pty.onData((data) => {
      this.output += data;
      for (const waiter of this.waiters) waiter();
    });
    this.exited = new Promise((resolve) =>
      this.pty.onExit(({ exitCode }) => {
        this.exitCode = exitCode;
        for (const waiter of this.waiters) waiter();
        resolve(exitCode);
      }),
    );
  }

  /** The output so far, without escape sequences. */
  get text(): string {
    return plain(this.output);
  }

  /** Waits until the plain output after `from` matches `pattern` (bounded: fails after `ms`). */
  async waitFor(pattern: RegExp | string, from = 0, ms = 15_000): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      const text = plain(this.output.slice(from));
      const found = typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text);
      if (found) return text;
      if (this.exitCode !== undefined || Date.now() > deadline) {
        throw new Error(
          `waited for ${String(pattern)}; the chat ${this.exitCode === undefined ? 'printed' : `exited ${this.exitCode} after`}:\n${text.slice(-3000)}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      this.waiters = [];
    }
  }

  /** Types `line` and Enter, then waits for `until` in the output that follows. */
  async send(line: string, until: RegExp | string): Promise<string> {
    const from = this.output.length;
    this.pty.write(`${line}\r`);
    return this.waitFor(until, from);
  }

  /** Resolves the exit code (killing the process after `ms`). */
  async exit(ms = 10_000): Promise<number> {
    const timer = setTimeout(() => this.pty.kill(), ms);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}
