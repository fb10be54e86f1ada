/**
 * A gateway client's `context-1m-*` flag (`providerOptions.anthropic.clientBetas`) opens Sonnet 4.5's
 * 1M window only toward the Anthropic API's own adapter, the one that sends it: Claude on Bedrock
 * or Vertex never gets the flag, so the router keeps their 200k window (and refuses the prompt
 * before the upstream would). An Anthropic adapter named otherwise (`work-claude`) takes the flags
 * from its own `providerOptions` key as from its type's, and the router opens the window as it does.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { userText } from '../core/transcript.ts';
import type { Switchyard } from '../switchyard.ts';
import { type Emulator, startEmulator } from '../testing/index.ts';
import { createEmulatedSwitchyard } from '../../test/support/emulated.ts';

let emulator: Emulator;
let sy: Switchyard;

beforeAll(async () => {
  emulator = await startEmulator();
  sy = createEmulatedSwitchyard(emulator.url, {
    env: {},
    adapters: {
      anthropic: { type: 'anthropic', api_key: 'anthropic-key-0123' },
      'work-claude': { type: 'anthropic', api_key: 'work-claude-key-0123' },
      bedrock: { type: 'bedrock', api_key: 'bedrock-bearer-0123', options: { protocol: 'invoke' } },
      vertex: { type: 'vertex', api_key: 'vertex-express-0123' },
    },
  });
});
afterAll(async () => {
  await sy?.close();
  await emulator?.close();
});

// ~300k tokens: over Sonnet 4.5's 200k window by more than 1.5×, within its 1M window.
const large = [userText('lorem ipsum dolor sit amet '.repeat(60_000))];
const clientBetas = { anthropic: { clientBetas: ['context-1m-2025-08-07'] } };

it.each(['bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'vertex:claude-sonnet-4-5@20250929'])(
  'a client’s context-1m flag leaves %s its 200k window: refused unsent',
  async (model) => {
    const from = emulator.requests.length;
    const error = await sy
      .complete({ model, transcript: large, providerOptions: clientBetas })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'context_overflow', providerCode: 'context_window_exceeded' });
    expect((error as Error).message).toContain(`${model}: context window 200000 < estimated`);
    expect(emulator.requests.length).toBe(from);
  },
);

it('the same flag opens the 1M window of the Anthropic API’s adapter: dispatched', async () => {
  emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'hi' }] });
  const from = emulator.requests.length;
  const reply = await sy.complete({
    model: 'anthropic:claude-sonnet-4-5',
    transcript: large,
    providerOptions: clientBetas,
  });
  expect(reply.model).toBe('anthropic:claude-sonnet-4-5');
  expect(emulator.requests.length).toBe(from + 1);
  expect(emulator.requests.at(-1)?.headers['anthropic-beta']).toBe('context-1m-2025-08-07');
});

it.each([
  ['its own name', { 'work-claude': { betas: ['context-1m-2025-08-07'] } }],
  ['its own name (a client’s flag)', { 'work-claude': { clientBetas: ['context-1m-2025-08-07'] } }],
  ['its type', { anthropic: { betas: ['context-1m-2025-08-07'] } }],
])(
  'an Anthropic adapter named work-claude gets the 1M window from the flag under %s, as it sends it',
  async (_key, providerOptions) => {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'hi' }] });
    const from = emulator.requests.length;
    const reply = await sy.complete({
      model: 'work-claude:claude-sonnet-4-5',
      transcript: large,
      providerOptions: providerOptions as never,
    });
    expect(reply.model).toBe('work-claude:claude-sonnet-4-5');
    expect(emulator.requests.length).toBe(from + 1);
    expect(emulator.requests.at(-1)?.headers['anthropic-beta']).toBe('context-1m-2025-08-07');
  },
);

it('a flag under another adapter’s name opens nothing toward work-claude: refused unsent', async () => {
  const from = emulator.requests.length;
  const error = await sy
    .complete({
      model: 'work-claude:claude-sonnet-4-5',
      transcript: large,
      providerOptions: { 'other-claude': { betas: ['context-1m-2025-08-07'] } } as never,
    })
    .catch((caught: unknown) => caught);
  expect(error).toMatchObject({ errorClass: 'context_overflow', providerCode: 'context_window_exceeded' });
  expect(emulator.requests.length).toBe(from);
});
