/**
 * `switchyard chat` in a real pseudo-terminal against the emulator: a four-turn conversation that
 * swaps Anthropic → OpenAI → Gemini with an approved MCP tool call carried across, the status
 * line's cost against the logged turns, `/save` then `--resume`, `/model` did-you-mean, an
 * attachment refused before sending; then Ctrl-C mid-answer (the emulator sees the socket close)
 * and bad input that must not crash it.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type ChatStore } from '../../src/cli/chat/store.ts';
import {
  type Emulator,
  openaiError,
  type ServedRequest,
  startEmulator,
} from '../../src/testing/emulator/index.ts';
import { repoRoot } from '../support/fixtures.ts';
import { makeReadOnly } from '../support/read-only.ts';
import { chatEnv, cliEntry, PtyChat, temporaryFolder, writeChatConfig } from '../support/pty-chat.ts';

let emulator: Emulator;
const served: ServedRequest[] = [];
let folder: string;
let config: string;

beforeAll(async () => {
  emulator = await startEmulator({ onResponse: (entry) => served.push(entry) });
  folder = temporaryFolder();
  config = writeChatConfig(emulator, folder);
});
afterAll(async () => {
  await emulator.close();
});
afterEach(() => {
  for (const chat of PtyChat.running) chat.pty.kill();
});

async function openLog(dataDir: string): Promise<ChatStore> {
  const store = await openStore(join(dataDir, 'chat.db'));
  if ('reason' in store) throw new Error(store.reason);
  return store;
}

const amounts = (text: string, label: string) =>
  [...text.matchAll(new RegExp(`\\$(\\d+\\.\\d+) ${label}`, 'g'))].map((match) => Number(match[1]));

describe('switchyard chat in a terminal', () => {
  it('swaps Anthropic → OpenAI → Gemini with an approved tool call carried across; costs add up; /save then --resume restores it', async () => {
    const dataDir = join(folder, 'data-swap');
    const chat = new PtyChat(['--config', config, '-m', 'sonnet'], chatEnv(dataDir));
    await chat.waitFor('› ');
    expect(chat.text).toContain('5 tools');
    const first = emulator.requests.length;

    // Turn 1 (Anthropic) asks for the tool; approved at the prompt; turn 2 (Anthropic) answers.
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'tool-call', name: 'calc_add', input: { a: 2, b: 40 } }],
      usage: { input: 1200, output: 40 },
    });
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'It is 42.' }],
      usage: { input: 1300, output: 8 },
    });
    await chat.send('What is 2 + 40?', 'run calc_add');
    chat.pty.write('y');
    await chat.waitFor(/It is 42\.[\s\S]*total/, chat.output.length - 400);

    // A typo suggests the right name; the swap itself.
    await chat.send('/model gpt-mnii', "did you mean 'gpt-mini'?");
    await chat.send('/model gpt-mini', 'the conversation continues');

    // An attachment the model cannot take is refused before anything is sent.
    const tiff = join(folder, 'scan.tiff');
    writeFileSync(tiff, Buffer.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0, 0, 0]));
    const before = emulator.requests.length;
    await chat.send(`/attach ${tiff}`, 'not attached');
    expect(emulator.requests.length).toBe(before);

    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'Still 42, from OpenAI.' }],
      usage: { input: 1400, output: 9 },
    });
    await chat.send('And on OpenAI?', /Still 42, from OpenAI\.[\s\S]*total/);
    await chat.send('/model flash', 'the conversation continues');
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'Gemini agrees: 42.' }],
      usage: { input: 1500, output: 7 },
    });
    const last = await chat.send('And Gemini?', /Gemini agrees: 42\.[\s\S]*total/);
    await chat.send('/save arithmetic', 'saved as arithmetic');
    chat.pty.write('/exit\r');
    expect(await chat.exit()).toBe(0);
    // What was typed is kept privately, as shells keep their history.
    expect(statSync(join(dataDir, 'input-history')).mode & 0o777).toBe(0o600);

    const requests = emulator.requests.slice(first);
    expect(requests.map((request) => request.protocol)).toEqual([
      'anthropic-messages',
      'anthropic-messages',
      'openai-chat',
      'gemini',
    ]);
    // The Anthropic tool call and its result, carried across the swap in each provider's own shape.
    const openaiMessages = (requests[2]!.body as { messages: Array<Record<string, unknown>> }).messages;
    const call = openaiMessages.find((message) => Array.isArray(message.tool_calls)) as {
      tool_calls: Array<{ id: string; function: { name: string } }>;
    };
    expect(call.tool_calls[0]!.function.name).toBe('calc_add');
    expect(openaiMessages.find((message) => message.role === 'tool')).toMatchObject({
      tool_call_id: call.tool_calls[0]!.id,
      content: '42',
    });
    const geminiBody = JSON.stringify(requests[3]!.body);
    expect(geminiBody).toContain('"functionCall":{"name":"calc_add"');
    expect(geminiBody).toContain('"functionResponse"');

    // The status line: each message's cost, and a total equal to the sum of the priced turns.
    const store = await openLog(dataDir);
    const record = store.load('arithmetic')!;
    store.close();
    expect(record.turns.map((turn) => turn.model)).toEqual([
      'anthropic:claude-sonnet-4-5',
      'anthropic:claude-sonnet-4-5',
      'openai:gpt-5-mini',
      'gemini:gemini-2.5-flash',
    ]);
    const costs = record.turns.map((turn) => turn.cost!);
    for (const cost of costs) expect(cost).toBeGreaterThan(0);
    const sum = costs.reduce((total, cost) => total + cost, 0);
    const perMessage = amounts(chat.text, 'this turn');
    expect(perMessage).toHaveLength(3);
    expect(perMessage[0]).toBeCloseTo(costs[0]! + costs[1]!, 6);
    expect(perMessage[1]).toBeCloseTo(costs[2]!, 6);
    expect(perMessage[2]).toBeCloseTo(costs[3]!, 6);
    expect(amounts(last, 'total').at(-1)).toBeCloseTo(sum, 6);

    // --resume: the transcript comes back exactly and the conversation goes on (here on Anthropic again).
    const resumed = new PtyChat(
      ['--config', config, '--resume', 'arithmetic', '-m', 'sonnet'],
      chatEnv(dataDir),
    );
    await resumed.waitFor('› ');
    expect(resumed.text).toContain('calc_add {"a":2,"b":40}');
    expect(resumed.text).toContain('Gemini agrees: 42.');
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Back on Anthropic.' }] });
    await resumed.send('Still there?', /Back on Anthropic\.[\s\S]*total/);
    resumed.pty.write('\x04');
    expect(await resumed.exit()).toBe(0);
    const after = await openLog(dataDir);
    const continued = after.load('arithmetic')!;
    after.close();
    expect(continued.id).toBe(record.id);
    expect(continued.transcript.slice(0, record.transcript.length)).toEqual(record.transcript);
    expect(continued.transcript.length).toBe(record.transcript.length + 2);
  }, 60_000);

  it('Ctrl-C mid-answer aborts the upstream call, keeps the partial answer, and the chat goes on; bad input never crashes it', async () => {
    const dataDir = join(folder, 'data-abort');
    const chat = new PtyChat(['--config', config, '-m', 'gpt-mini'], chatEnv(dataDir));
    await chat.waitFor('› ');

    emulator.enqueue({
      type: 'scripted',
      // The upstream sends the first words, then goes silent until the call is aborted: Ctrl-C is
      // mid-answer however slow the machine (a timed drip could end before a loaded test pressed it).
      content: [{ type: 'text', text: `One. Two. Three. ${'And counting. '.repeat(60)}Ten.` }],
      chunkSize: 5,
      fault: { stallAfterEvents: 4 },
    });
    const servedBefore = served.length;
    const asked = chat.output.length;
    await chat.send('Count to ten slowly.', 'One.');
    chat.pty.resize(60, 20); // A resize mid-answer.
    chat.pty.write('\x03');
    await chat.waitFor('interrupted — the partial answer is kept', asked);
    await expect.poll(() => served.slice(servedBefore).some((entry) => !entry.complete)).toBe(true);

    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Still here.' }] });
    await chat.send('Are you there?', /Still here\.[\s\S]*total/);

    await chat.send('/frobnicate', "unknown command '/frobnicate'");
    await chat.send('/modle', "did you mean '/model'?");
    const binary = join(folder, 'blob.bin');
    writeFileSync(binary, Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 0, 0]));
    await chat.send(`/attach ${binary}`, 'binary file');

    // A 10 MB bracketed paste becomes one placeholder and one message; the front door refuses it.
    const requests = emulator.requests.length;
    chat.pty.write(`\x1b[200~${'lorem ipsum\n'.repeat(900_000)}\x1b[201~`);
    await chat.waitFor(/\[paste #1: 900001 lines, 10\.3 MB\]/, chat.output.length);
    await chat.send('', 'no model can take this request');
    expect(emulator.requests.length).toBe(requests);

    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Fine after all that.' }] });
    await chat.send('One more?', /Fine after all that\.[\s\S]*total/);
    chat.pty.write('\x03'); // Ctrl-C at an empty prompt exits.
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  it('Ctrl-C at a tool-approval prompt declines that call and the rest of the turn without asking; in a pipe SIGINT does the same', async () => {
    const twoCalls = () =>
      emulator.enqueue({
        type: 'scripted',
        content: [
          { type: 'tool-call', name: 'calc_add', input: { a: 1, b: 2 } },
          { type: 'tool-call', name: 'calc_add', input: { a: 3, b: 4 } },
        ],
      });
    const declined = () =>
      JSON.stringify(emulator.requests.at(-1)!.body).match(/declined at the prompt/g)?.length ?? 0;

    const chat = new PtyChat(['--config', config, '-m', 'gpt-mini'], chatEnv(join(folder, 'data-approve')));
    await chat.waitFor('› ');
    twoCalls();
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Nothing run.' }] });
    const asked = chat.output.length;
    await chat.send('Add both.', 'run calc_add');
    chat.pty.write('\x03');
    const after = await chat.waitFor(/Nothing run\.[\s\S]*total/, asked);
    expect(after.match(/run calc_add/g)).toHaveLength(1);
    expect(after).toContain('declined the other 1 call too');
    expect(declined()).toBe(2);
    chat.pty.write('\x04');
    expect(await chat.exit()).toBe(0);

    // A pipe: SIGINT while the question waits for a line answers it, and the chat goes on.
    twoCalls();
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Still nothing run.' }] });
    const child = spawn(process.execPath, [cliEntry, 'chat', '--config', config, '-m', 'gpt-mini'], {
      cwd: repoRoot,
      env: chatEnv(join(folder, 'data-approve-pipe')),
    });
    child.stdin.write('Add both.\n');
    let output = '';
    const seen = (pattern: RegExp) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (pattern.test(output)) {
            child.stdout.off('data', check);
            resolve();
          }
        };
        child.stdout.on('data', check);
        check();
      });
    child.stdout.on('data', (data) => (output += data));
    await seen(/run calc_add .*\? \[y\]es \[n\]o \[a\]lways: $/);
    child.kill('SIGINT');
    await seen(/Still nothing run\.[\s\S]*total/);
    child.stdin.end();
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(output.match(/run calc_add/g)).toHaveLength(1);
    expect(declined()).toBe(2);
  }, 60_000);

  it('a corrupt log: one clear line, the chat answers without logging; stdin closing ends it with exit 0', async () => {
    const dataDir = join(folder, 'data-corrupt');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'chat.db'), 'not a database '.repeat(100));
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Answered anyway.' }] });
    const child = spawn(process.execPath, [cliEntry, 'chat', '--config', config], {
      cwd: repoRoot,
      env: chatEnv(dataDir),
    });
    child.stdin.end('Hello?\n/frobnicate\n');
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stdout += chunk));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toMatch(/^not logging this conversation: cannot use .*chat\.db: file is not a database$/m);
    expect(stdout).toContain('Answered anyway.');
    expect(stdout).toContain("unknown command '/frobnicate'");
  });

  it('a warning from preparing the request shows before the answer, as the recorded session shows it', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [
        { type: 'reasoning', text: 'think', signature: 'sig-1' },
        { type: 'text', text: 'From Claude.' },
      ],
    });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'From GPT.' }] });
    const child = spawn(process.execPath, [cliEntry, 'chat', '--config', config, '-m', 'sonnet'], {
      cwd: repoRoot,
      env: chatEnv(join(folder, 'data-early-warning')),
    });
    child.stdin.end('Hi?\n/model gpt-mini\nAnd you?\n');
    let output = '';
    child.stdout.on('data', (data) => (output += data));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(output).toMatch(/^warning: dropped a part the provider cannot take .*\nFrom GPT\.$/m);
  });

  it('stdout closing (`| head -1`) mid-answer stops the answer, logs the conversation and exits 0 without a stack trace', async () => {
    const dataDir = join(folder, 'data-closed-stdout');
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'First answer.' }] });
    const child = spawn(process.execPath, [cliEntry, 'chat', '--config', config, '-m', 'gpt-mini'], {
      cwd: repoRoot,
      env: chatEnv(dataDir),
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdin.write('Hello?\n');
    let stdout = '';
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        if (/First answer\.[\s\S]*total/.test(stdout)) resolve();
      }),
    );
    // The reader leaves; the next answer never ends by itself, and stdin stays open with one more line.
    child.stdout.destroy();
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: `Second. ${'More. '.repeat(100)}` }],
      chunkSize: 5,
      fault: { stallAfterEvents: 4 },
    });
    child.stdin.write('And again?\nA line read ahead, never sent?\n');
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const store = await openLog(dataDir);
    const record = store.latest()!;
    store.close();
    expect(JSON.stringify(record.transcript)).toContain('And again?');
    expect(JSON.stringify(emulator.requests.at(-1)!.body)).toContain('And again?');
    expect(JSON.stringify(emulator.requests.at(-1)!.body)).not.toContain('never sent');
  });

  it("a provider's text in a warning or an error line reaches the terminal as one line without its escapes; a warning starts on its own line", async () => {
    const chunk = (delta: object, finish: string | null = null) => ({
      data: {
        id: 'c1',
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta, finish_reason: finish }],
      },
    });
    // A whole answer, then an in-band error whose code is a terminal title change and a screen clear.
    emulator.enqueue({
      type: 'sse',
      events: [
        chunk({ role: 'assistant', content: 'hello' }),
        chunk({}, 'stop'),
        { data: { error: { code: 'x\x1b]0;PWNED\x07\x1b[2J\ny', message: 'late' } } },
        { data: '[DONE]' },
      ],
    });
    emulator.enqueue(openaiError(500, 'boom\nsecond line\x1b[2J'));
    const child = spawn(process.execPath, [cliEntry, 'chat', '--config', config, '-m', 'gpt-mini'], {
      cwd: repoRoot,
      env: chatEnv(join(folder, 'data-hostile-warning')),
    });
    child.stdin.end('Hi?\nAgain?\n');
    let output = '';
    child.stdout.on('data', (data) => (output += data));
    child.stderr.on('data', (data) => (output += data));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(output).toMatch(
      /^hello\nwarning: ignored a failure of the stream after the response was complete \(x\]0;PWNED y\)$/m,
    );
    expect(output).toMatch(/^✗ server_error: .*boom second line.*$/m);
    // eslint-disable-next-line no-control-regex
    expect(output).not.toMatch(/\x1b|\x07/);
  });

  it('--continue without the config that defined the alias goes on with the model of the last answer and says so; errors go to stderr', async () => {
    const dataDir = join(folder, 'data-alias');
    const aliased = join(folder, 'aliased.yaml');
    writeFileSync(
      aliased,
      `${readFileSync(config, 'utf8')}models:\n  openai:gpt-5-mini: { aliases: [myclaude] }\n`,
    );
    const run = async (args: string[], input: string) => {
      const child = spawn(process.execPath, [cliEntry, 'chat', ...args], {
        cwd: repoRoot,
        env: chatEnv(dataDir),
      });
      child.stdin.end(input);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (data) => (stdout += data));
      child.stderr.on('data', (data) => (stderr += data));
      const code = await new Promise((resolve) => child.on('close', resolve));
      return { code, stdout, stderr };
    };
    expect((await run(['--config', config, '--resume', 'nowhere'], '')).stderr).toBe(
      "switchyard chat: no conversation 'nowhere' to resume\n",
    );
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Aliased.' }] });
    expect((await run(['--config', aliased, '-m', 'myclaude'], 'Hi?\n')).stdout).toContain('Aliased.');

    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Resumed.' }] });
    const resumed = await run(['--config', config, '--continue'], 'Again?\n');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(
      "model 'myclaude' is not in this configuration: continuing on openai:gpt-5-mini, the model of its last answer",
    );
    expect(resumed.stdout).toContain('Resumed.');
  });

  it('once repeated failures pause the model, the error line says so in plain words and when it is tried again', async () => {
    for (let failure = 0; failure < 3; failure++) emulator.enqueue(openaiError(500, 'upstream down'));
    const requests = emulator.requests.length;
    const child = spawn(process.execPath, [cliEntry, 'chat', '--config', config, '-m', 'gpt-mini'], {
      cwd: repoRoot,
      env: chatEnv(join(folder, 'data-paused')),
    });
    child.stdin.end('One?\nTwo?\nThree?\nFour?\n');
    let output = '';
    child.stdout.on('data', (data) => (output += data));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(emulator.requests.length - requests).toBe(3); // The fourth never went out.
    expect(output.match(/^✗ server_error: .*upstream down.*$/gm)).toHaveLength(3);
    expect(output).toMatch(
      /^✗ gpt-mini is paused after repeated failures: it is tried again in \d+ s \(\/model NAME switches to another\)$/m,
    );
  });

  it('a read-only log (even to root): one clear line at start, the chat answers without logging, the file untouched', async () => {
    const dataDir = join(folder, 'data-read-only');
    const path = join(dataDir, 'chat.db');
    (await openLog(dataDir)).close(); // A real, empty log.
    const before = readFileSync(path);
    const readOnly = makeReadOnly(path);
    try {
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Answered unlogged.' }] });
      const child = spawn(process.execPath, [cliEntry, 'chat', '--config', config], {
        cwd: repoRoot,
        env: chatEnv(dataDir),
      });
      child.stdin.end('Hello?\n');
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code).toBe(0);
      expect(output).toMatch(
        /^not logging this conversation: cannot use .*chat\.db: attempt to write a readonly database$/m,
      );
      expect(output).toContain('Answered unlogged.');
      expect(output).not.toContain('not logging any more'); // Found at start, not at the first save.
      if (readOnly.how !== 'sqlite-header') expect(readFileSync(path).equals(before)).toBe(true);
    } finally {
      readOnly.undo();
    }
  });

  it('--resume of a record whose tool_ids is damaged: one line naming it and what to do, exit 1, no stack trace', async () => {
    const dataDir = join(folder, 'data-damaged');
    const store = await openLog(dataDir);
    store.save({
      id: 'DAMAGED1',
      title: 'hello',
      model: 'sonnet',
      createdAt: '2026-11-26T10:00:00.000Z',
      updatedAt: '2026-11-26T10:00:00.000Z',
      transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'hello' }] }],
      turns: [],
      toolIds: [],
    });
    store.close();
    const database = new DatabaseSync(join(dataDir, 'chat.db'));
    database.prepare('UPDATE conversations SET tool_ids = ? WHERE id = ?').run('{"a":1}', 'DAMAGED1');
    database.close();
    const child = spawn(process.execPath, [cliEntry, 'chat', '--config', config, '--resume', 'DAMAGED1'], {
      cwd: repoRoot,
      env: chatEnv(dataDir),
    });
    child.stdin.end('');
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toBe(
      "switchyard chat: conversation DAMAGED1 is damaged: its tool_ids is not a list of [provider, id, provider id] triples — 'switchyard chat' starts a new conversation, 'switchyard history' lists the others\n",
    );
  });
});
