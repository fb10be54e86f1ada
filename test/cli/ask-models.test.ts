/**
 * `switchyard ask` and `switchyard models`: output and exit codes (0 ok, 1 provider error with its
 * class on stderr, 2 usage), against the emulator; one real process for piped stdin and the
 * no-key fallback to the built-in emulator.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAsk } from '../../src/cli/ask-command.ts';
import { openFrontDoor } from '../../src/cli/chat/setup.ts';
import { createSwitchyard } from '../../src/switchyard.ts';
import { runCli } from '../../src/cli/run.ts';
import { anthropicError, type Emulator, startEmulator } from '../../src/testing/emulator/index.ts';
import { chatEnv, cliEntry, temporaryFolder, writeChatConfig } from '../support/pty-chat.ts';
import { repoRoot } from '../support/fixtures.ts';

let emulator: Emulator;
let config: string;
beforeAll(async () => {
  emulator = await startEmulator();
  config = writeChatConfig(emulator, temporaryFolder(), false);
});
afterAll(async () => {
  await emulator.close();
});

function capture() {
  const stdout: string[] = [];
  const stderr: string[] = [];
  let written = '';
  return {
    stdout,
    stderr,
    get written() {
      return written;
    },
    output: { stdout: (line: string) => stdout.push(line), stderr: (line: string) => stderr.push(line) },
    streams(stdin?: string, tty = false) {
      return {
        stdin: stdin === undefined ? undefined : Readable.from([stdin]),
        write: (text: string) => void (written += text),
        tty,
      };
    },
  };
}

describe('switchyard ask', () => {
  it('streams the answer to stdout and exits 0; piped text goes with the prompt', async () => {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'A short summary.' }] });
    const io = capture();
    const code = await runAsk(
      { model: 'sonnet', config, json: false, prompt: 'summarize' },
      io.output,
      io.streams('the file'),
    );
    expect({ code, written: io.written, stderr: io.stderr }).toEqual({
      code: 0,
      written: 'A short summary.\n',
      stderr: [],
    });
    expect(JSON.stringify(emulator.requests.at(-1)!.body)).toContain('summarize\\n\\nthe file');
  });

  it('--json prints one canonical event per line, finish last', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'Hi.' }],
      usage: { input: 10, output: 2 },
    });
    const io = capture();
    const code = await runAsk(
      { model: 'gpt-mini', config, json: true, prompt: 'hello' },
      io.output,
      io.streams(),
    );
    const events = io.written
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; response?: { usage: { cost?: unknown } } });
    expect(code).toBe(0);
    expect(events[0]!.type).toBe('message-start');
    expect(events.at(-1)!.type).toBe('finish');
    expect(events.at(-1)!.response!.usage.cost).toMatchObject({ currency: 'USD' });
  });

  it('exits 1 on a provider error, its class and message on stderr', async () => {
    emulator.enqueue(
      anthropicError(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit'),
    );
    const io = capture();
    const code = await runAsk(
      { model: 'sonnet', config, json: false, prompt: 'hello' },
      io.output,
      io.streams(),
    );
    expect(code).toBe(1);
    expect(io.stderr).toHaveLength(1);
    expect(io.stderr[0]).toMatch(/^switchyard ask: rate_limit: .*rate limit/);
  });

  it("on a terminal the answer loses its control sequences, as in chat; piped it is the model's text as sent", async () => {
    const evil = 'Hi \x1b]52;c;cm0gLXJmIH4K\x07 \x1b[2Jthere\u009b31m\n\tend';
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: evil }] });
    const terminal = capture();
    const ask = { model: 'sonnet', config, json: false, prompt: 'hello' };
    expect(await runAsk(ask, terminal.output, terminal.streams(undefined, true))).toBe(0);
    expect(terminal.written).toBe('Hi ]52;c;cm0gLXJmIH4K there31m\n\tend\n');

    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: evil }] });
    const json = capture();
    expect(await runAsk({ ...ask, json: true }, json.output, json.streams(undefined, true))).toBe(0);
    // eslint-disable-next-line no-control-regex
    expect(json.written).not.toMatch(/[\x1b\x07\x7f-\x9f]/);
    expect(json.written).toContain('\\u001b[2Jthere31m'); // JSON's escape, text on a terminal.

    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: evil }] });
    const piped = capture();
    expect(await runAsk(ask, piped.output, piped.streams())).toBe(0);
    expect(piped.written).toBe(`${evil}\n`);
  });

  it('on a terminal bidirectional overrides and isolates show as \\u escapes (nothing reordered), right-to-left text, emoji and CJK as they are; piped it is the text as sent', async () => {
    const text = 'if (admin\u202e) {\u2066 } \u2069 — مرحبا שלום \u200f 👨‍👩‍👧 ❤️ 日本語';
    const shown = 'if (admin\\u202e) {\\u2066 } \\u2069 — مرحبا שלום \u200f 👨‍👩‍👧 ❤️ 日本語';
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text }] });
    const terminal = capture();
    const ask = { model: 'sonnet', config, json: false, prompt: 'hello' };
    expect(await runAsk(ask, terminal.output, terminal.streams(undefined, true))).toBe(0);
    expect(terminal.written).toBe(`${shown}\n`);

    // --json on a terminal: the escape is JSON's own, so each line is still the event it was.
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text }] });
    const json = capture();
    expect(await runAsk({ ...ask, json: true }, json.output, json.streams(undefined, true))).toBe(0);
    expect(json.written).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    const deltas = json.written
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; delta?: string })
      .filter((event) => event.type === 'text-delta');
    expect(deltas.map((event) => event.delta).join('')).toBe(text);

    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text }] });
    const piped = capture();
    expect(await runAsk(ask, piped.output, piped.streams())).toBe(0);
    expect(piped.written).toBe(`${text}\n`);
  });

  it('a provider error message reaches stderr as one line without control sequences', async () => {
    emulator.enqueue(
      anthropicError(400, 'invalid_request_error', 'bad \x1b]52;c;cm0g\x07 request\n\x1b[2J\u009b31m'),
    );
    const io = capture();
    const code = await runAsk(
      { model: 'sonnet', config, json: false, prompt: 'hello' },
      io.output,
      io.streams(),
    );
    expect(code).toBe(1);
    expect(io.stderr).toHaveLength(1);
    expect(io.stderr[0]).toMatch(
      /^switchyard ask: invalid_request: .*400 invalid_request_error: bad \]52;c;cm0g request 31m$/,
    );
  });

  it('with only an adapter named otherwise (work-claude of type anthropic) and no -m: its own sonnet, not its oldest catalog model', async () => {
    const folder = temporaryFolder();
    const write = (builtins: boolean) => {
      const path = join(folder, `renamed-${String(builtins)}.yaml`);
      writeFileSync(
        path,
        [
          `builtins: ${String(builtins)}`,
          'adapters:',
          `  work-claude: { type: anthropic, base_url: '${emulator.url}/v1', api_key: test-key, max_retries: 0 }`,
          '',
        ].join('\n'),
      );
      return path;
    };
    // The built-in aliases name the anthropic adapter (here without a key): the default is the model
    // `sonnet` names, under the configured adapter's name — with the built-ins and without them.
    const reference = createSwitchyard({ env: {} });
    const sonnet = reference.resolve('sonnet').wireName;
    await reference.close();
    for (const builtins of [true, false]) {
      const door = await openFrontDoor({ config: write(builtins), env: {} });
      try {
        expect(door.defaultModel, `builtins: ${String(builtins)}`).toBe(`work-claude:${sonnet}`);
      } finally {
        await door.close();
      }
    }
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Hello.' }] });
    const io = capture();
    const code = await runAsk({ config: write(false), json: false, prompt: 'hi' }, io.output, io.streams());
    expect({ code, written: io.written, stderr: io.stderr }).toEqual({
      code: 0,
      written: 'Hello.\n',
      stderr: [],
    });
    expect((emulator.requests.at(-1)!.body as { model: string }).model).toBe(sonnet);
  });

  it('exits 2 on bad usage: an unknown model (with did-you-mean), no prompt, an unknown option', async () => {
    const lines: string[] = [];
    const output = { stdout: (line: string) => lines.push(line), stderr: (line: string) => lines.push(line) };
    expect(await runCli(['ask', '--config', config, '-m', 'sonet', 'hi'], output)).toBe(2);
    expect(lines.pop()).toBe("switchyard ask: unknown model 'sonet' (did you mean 'sonnet'?)");
    const io = capture();
    await expect(runAsk({ config, json: false, prompt: '' }, io.output, io.streams())).rejects.toThrow(
      'missing PROMPT',
    );
    expect(await runCli(['ask', '--jsn', 'hi'], output)).toBe(2);
    expect(lines.pop()).toBe("switchyard ask: unknown option '--jsn' (did you mean '--json'?)");
  });

  it('as a process with no API key anywhere: piped stdin, the built-in emulator said in one line, exit 0', async () => {
    const child = spawn(process.execPath, [cliEntry, 'ask', 'summarize'], {
      cwd: repoRoot,
      env: chatEnv(temporaryFolder()),
    });
    child.stdin.end('some piped text');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toContain('Switchyard emulator');
    expect(stderr.trim().split('\n')).toEqual([expect.stringContaining('using the built-in emulator')]);
  });

  it('stdout closed before the answer (`| head -1`): exit 0, no stack trace, only the emulator line on stderr', async () => {
    const child = spawn(process.execPath, [cliEntry, 'ask', 'hi'], {
      cwd: repoRoot,
      env: chatEnv(temporaryFolder()),
    });
    child.stdout.destroy(); // The reader is gone before the first byte: every write fails with EPIPE.
    child.stdin.end();
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stderr.trim().split('\n')).toEqual([expect.stringContaining('using the built-in emulator')]);
  });
});

describe('switchyard models', () => {
  it('--json lists every model with aliases, limits, prices and whether it is configured', async () => {
    const lines: string[] = [];
    const code = await runCli(['models', '--config', config, '--json'], {
      stdout: (line) => lines.push(line),
      stderr: (line) => lines.push(line),
    });
    expect(code).toBe(0);
    const rows = JSON.parse(lines.join('\n')) as Array<Record<string, unknown>>;
    expect(rows.find((row) => row.id === 'anthropic:claude-sonnet-4-5')).toMatchObject({
      aliases: ['sonnet'],
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
      inputPerMillion: 3,
      outputPerMillion: 15,
      configured: true,
    });
    expect(
      rows
        .filter((row) => row.provider === 'deepseek')
        .every((row) => row.configured === Boolean(process.env.DEEPSEEK_API_KEY)),
    ).toBe(true);
  });

  it('--provider filters; a table with a header by default; an unknown provider exits 2 with did-you-mean', async () => {
    const lines: string[] = [];
    const output = { stdout: (line: string) => lines.push(line), stderr: (line: string) => lines.push(line) };
    expect(await runCli(['models', '--config', config, '--provider', 'gemini'], output)).toBe(0);
    expect(lines[0]).toMatch(/^model\s+aliases\s+context\s+output\s+in\/Mtok\s+out\/Mtok\s+configured$/);
    expect(lines.slice(1).every((line) => line.startsWith('gemini:'))).toBe(true);
    expect(lines.find((line) => line.startsWith('gemini:gemini-2.5-flash '))).toMatch(
      /flash\s+1M\s+65\.5k\s+\$0\.3\s+\$2\.5\s+yes/,
    );
    lines.length = 0;
    expect(await runCli(['models', '--provider', 'antropic'], output)).toBe(2);
    expect(lines).toEqual(["switchyard models: unknown provider 'antropic' (did you mean 'anthropic'?)"]);
  });

  it("prices the models of an adapter named otherwise (work-claude) as its provider's, as its replies are charged", async () => {
    const renamed = join(temporaryFolder(), 'switchyard.yaml');
    writeFileSync(
      renamed,
      [
        'builtins: false',
        'adapters:',
        `  work-claude: { type: anthropic, base_url: '${emulator.url}/v1', api_key: test-key, max_retries: 0 }`,
        'models:',
        "  'work-claude:claude-sonnet-4-5': {}",
        '',
      ].join('\n'),
    );
    const lines: string[] = [];
    const output = { stdout: (line: string) => lines.push(line), stderr: (line: string) => lines.push(line) };
    expect(await runCli(['models', '--config', renamed, '--json'], output)).toBe(0);
    const rows = JSON.parse(lines.join('\n')) as Array<Record<string, unknown>>;
    expect(rows.find((row) => row.id === 'work-claude:claude-sonnet-4-5')).toMatchObject({
      inputPerMillion: 3,
      outputPerMillion: 15,
    });
  });
});
