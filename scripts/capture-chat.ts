/**
 * Records docs/chat-session.txt: a `switchyard chat` session in tmux (96×44) against the emulator —
 * an MCP tool call approved at the prompt, a typo, swaps Anthropic → OpenAI → Gemini, `/cost` —
 * captured with `tmux capture-pane`. Run: `node scripts/capture-chat.ts` (needs tmux).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../src/testing/emulator/index.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const emulator = await startEmulator();
const folder = mkdtempSync(join(tmpdir(), 'switchyard-capture-'));
const adapter = (type: string, path: string) =>
  `  ${type}: { type: ${type}, base_url: '${emulator.url}${path}', api_key: demo, max_retries: 0 }`;
writeFileSync(
  join(folder, 'switchyard.yaml'),
  [
    'adapters:',
    adapter('anthropic', '/v1'),
    adapter('openai', '/v1'),
    adapter('gemini', '/v1beta'),
    'mcp_servers:',
    `  calc: { command: '${process.execPath}', args: ['${join(root, 'test/support/mcp-server.ts')}', '--stdio'] }`,
    '',
  ].join('\n'),
);
const answers: Array<{ content: object[]; usage: object }> = [
  {
    content: [
      {
        type: 'reasoning',
        text: 'The user wants a sum; the calc tool adds numbers exactly.',
        signature: 'sig',
      },
      { type: 'tool-call', name: 'calc_add', input: { a: 1234, b: 5678 } },
    ],
    usage: { input: 1850, output: 64 },
  },
  {
    content: [
      {
        type: 'text',
        text: '**1234 + 5678 = 6912.**\n\nIn TypeScript:\n\n```ts\nconst sum = 1234 + 5678; // 6912\n```\n',
      },
    ],
    usage: { input: 1990, output: 38 },
  },
  {
    content: [
      {
        type: 'text',
        text: 'Doubled, that is **13,824** — the tool result from Claude is in my context too.',
      },
    ],
    usage: { input: 2060, output: 24 },
  },
  {
    content: [
      {
        type: 'text',
        text: 'Agreed: 6,912 doubled is 13,824.\n\n- carried over: the `calc_add` call and its result\n- provider: Gemini',
      },
    ],
    usage: { input: 2110, output: 30 },
  },
];
for (const answer of answers) emulator.enqueue({ type: 'scripted', ...answer } as never);

const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
const pane = () => tmux('capture-pane', '-p', '-t', 'switchyard-capture');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function waitFor(text: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (pane().includes(text)) return;
    await sleep(100);
  }
  throw new Error(`the chat never showed ${text}:\n${pane()}`);
}
async function type(line: string, until: string): Promise<void> {
  tmux('send-keys', '-t', 'switchyard-capture', '-l', line);
  tmux('send-keys', '-t', 'switchyard-capture', 'Enter');
  await waitFor(until);
  await sleep(300);
}

const command = `cd '${root}' && SWITCHYARD_DATA_DIR='${join(folder, 'data')}' '${process.execPath}' src/cli/main.ts chat --config '${join(folder, 'switchyard.yaml')}' -m sonnet; sleep 60`;
tmux('new-session', '-d', '-s', 'switchyard-capture', '-x', '96', '-y', '44', command);
try {
  await waitFor('/help for commands');
  await type('What is 1234 + 5678? Use the calculator.', '[a]lways');
  tmux('send-keys', '-t', 'switchyard-capture', 'y');
  await waitFor('total');
  await type('/model gpt-mnii', 'did you mean');
  await type('/model gpt-mini', 'continues on it');
  await type('And doubled?', '$0.0138 total');
  await type('/model flash', 'gemini-2.5-flash) — the conversation');
  await type('Check that, Gemini?', '$0.0145 total');
  await type('/cost', '   total');
  const text = tmux('capture-pane', '-p', '-t', 'switchyard-capture', '-S', '-100').replace(/\n+$/, '\n');
  writeFileSync(join(root, 'docs/chat-session.txt'), text);
} finally {
  tmux('kill-session', '-t', 'switchyard-capture');
  await emulator.close();
  rmSync(folder, { recursive: true, force: true });
}
