/** `switchyard replay` on every recorded file of the protocols whose adapters have landed. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cliProviderTypeNames } from '../../src/cli/adapters.ts';
import { inferErrorStatus, runReplay } from '../../src/cli/replay-command.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';
import type { EmulatorProtocolId } from '../../src/testing/emulator/index.ts';
import { apiFor } from '../support/provider-types.ts';
import { listRecorded, repoRoot } from '../support/fixtures.ts';

const folders: Array<[EmulatorProtocolId, string[]]> = [
  ['anthropic-messages', ['anthropic']],
  [
    'openai-chat',
    [
      'openai/chat',
      'openai-compatible/chat',
      'groq',
      'deepseek/chat',
      'xai',
      'mistral',
      'moonshotai',
      'perplexity',
      'alibaba',
    ],
  ],
  ['gemini', ['google']],
  ['openai-responses', ['openai/responses', 'open-responses/responses', 'xai/responses']],
];

/** Recorded streams that must end in a classified error (a spliced stream is corrupt: fail, keep content). */
const expectedStreamErrors = new Map([
  ['anthropic/spliced-message-start.chunks.txt', 'network'],
  // An in-band quota error event, then response.failed.
  ['openai/responses/openai-error.1.chunks.txt', 'rate_limit'],
  // The recording's first line (response.created) is cut off mid-object.
  ['openai/responses/parallel-tool-call-wrapper.1.chunks.txt', 'server_error'],
]);

async function replay(file: string, protocol: EmulatorProtocolId) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runReplay(file, apiFor(protocol), {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
  });
  return { code, stdout, stderr };
}

for (const [protocol, apiFolders] of folders) {
  describe(`switchyard replay --protocol ${protocol}`, () => {
    const files = apiFolders.flatMap((folder) => listRecorded(folder));
    it.each(files.map((file) => [file.slice(file.indexOf('recorded/') + 9), file]))('%s', async (_, file) => {
      const { code, stdout, stderr } = await replay(file, protocol);
      const events = stdout.map((line) => JSON.parse(line) as { type: string });
      const streamError = expectedStreamErrors.get(file.slice(file.indexOf('recorded/') + 9));
      if (streamError !== undefined) {
        expect(code).toBe(1);
        expect(stderr.join('\n')).toMatch(new RegExp(`^${streamError}:`));
        expect(events.at(-1)).toMatchObject({ type: 'finish', response: { finishReason: 'error' } });
        return;
      }
      const expectError =
        !file.endsWith('.chunks.txt') && !file.endsWith('.sse') && inferErrorStatus(file) !== undefined;
      if (expectError) {
        expect(code).toBe(1);
        expect(stderr.join('\n')).toMatch(
          /^(rate_limit|auth|server_error|network|context_overflow|invalid_request|other):/,
        );
        return;
      }
      expect({ code, stderr }).toEqual({ code: 0, stderr: [] });
      for (const event of events) expect(typeof event.type).toBe('string');
      expect(events.at(-1)?.type).toBe('finish');
      if (file.endsWith('.json')) expect(events).toHaveLength(1);
      else assertStreamInvariants(events as never);
    });
  });
}

describe('the switchyard bin', () => {
  const run = promisify(execFile);
  const main = `${repoRoot}/src/cli/main.ts`;
  const anthropicText = listRecorded('anthropic').find((file) => file.endsWith('anthropic-text.chunks.txt'))!;

  it('prints one JSON event per line, the last being finish, and exits 0', async () => {
    const { stdout } = await run(process.execPath, [
      main,
      'replay',
      anthropicText,
      '--protocol',
      'anthropic-messages',
    ]);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    expect(lines[0]?.type).toBe('message-start');
    expect(lines.at(-1)?.type).toBe('finish');
  });

  it('replays a Responses stream with --protocol openai-responses (exit 0)', async () => {
    const responsesText = listRecorded('xai/responses').find((file) =>
      file.endsWith('xai-text-streaming.1.chunks.txt'),
    )!;
    const { stdout } = await run(process.execPath, [
      main,
      'replay',
      responsesText,
      '--protocol',
      'openai-responses',
    ]);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    expect(lines.at(-1)).toMatchObject({ type: 'finish', response: { finishReason: 'completed' } });
  });

  it('a missing file is a usage error (exit 2), not a provider error', async () => {
    const error = await run(process.execPath, [
      main,
      'replay',
      '/nonexistent.chunks.txt',
      '--protocol',
      'anthropic-messages',
    ]).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('no such file') });
  });

  it('rejects a protocol it has no adapter for in one line naming the protocols that work (exit 2)', async () => {
    const error = await run(process.execPath, [
      main,
      'replay',
      anthropicText,
      '--protocol',
      'smoke-signals',
    ]).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `switchyard replay: unknown --protocol 'smoke-signals' (this version supports ${cliProviderTypeNames().join(', ')}) — see 'switchyard replay --help'\n`,
    });
  });
});
