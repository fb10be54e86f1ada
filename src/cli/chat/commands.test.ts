/** Slash commands against a fake screen and an in-memory log: what they say, and what they change. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../core/logger.ts';
import { createSwitchyard } from '../../switchyard.ts';
import { type CommandContext, runSlashCommand } from './commands.ts';
import { ChatSession } from './session.ts';
import { type ChatStore, openStore } from './store.ts';

let store: ChatStore;
beforeAll(async () => {
  const opened = await openStore(join(mkdtempSync(join(tmpdir(), 'switchyard-commands-')), 'chat.db'));
  if ('reason' in opened) throw new Error(opened.reason);
  store = opened;
});
afterAll(() => store.close());

function chat(system?: string): { context: CommandContext; lines: string[] } {
  const lines: string[] = [];
  const sy = createSwitchyard({ config: { adapters: {} }, logger: createMemoryLogger() });
  const session = new ChatSession({ sy, model: 'sonnet', ...(system === undefined ? {} : { system }) });
  const context: CommandContext = {
    session,
    screen: { write: () => {}, tty: false, columns: () => 80, rows: () => 24 },
    store,
    tools: [],
    attachments: [],
    settings: { reasoning: false },
    say: (line) => void lines.push(line),
    save: () => void session.saveTo(store),
  };
  return { context, lines };
}

describe('/save', () => {
  it('on a conversation with no message yet says nothing was saved, and why, instead of a resume hint that would fail', async () => {
    const { context, lines } = chat('Be brief.');
    await runSlashCommand(context, '/save empty-one');
    expect(lines).toEqual(['nothing to save yet: no messages — it is saved as empty-one once you send one']);
    expect(store.load('empty-one')).toBeUndefined();
  });

  it('on a conversation with a message saves it under the name and says how to resume it', async () => {
    const { context, lines } = chat();
    context.session.transcript = [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }];
    await runSlashCommand(context, '/save greeting');
    expect(lines).toEqual(['saved as greeting — resume with: switchyard chat --resume greeting']);
    expect(store.load('greeting')?.transcript).toEqual(context.session.transcript);
  });

  it('with no conversation log says it was not saved', async () => {
    const { context, lines } = chat();
    context.store = undefined;
    context.session.transcript = [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }];
    await runSlashCommand(context, '/save unlogged');
    expect(lines).toEqual(['not saved: no conversation log (see the note at start-up)']);
  });
});

describe('/load', () => {
  it('a conversation whose model this configuration does not know stays on the current model and says so', async () => {
    store.save({
      id: 'elsewhere',
      title: 'Hi',
      model: 'myclaude',
      createdAt: '2026-11-26T10:00:00.000Z',
      updatedAt: '2026-11-26T10:00:00.000Z',
      transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
      turns: [],
    });
    const { context, lines } = chat();
    await runSlashCommand(context, '/load elsewhere');
    expect(context.session.model).toBe('sonnet');
    expect(lines.at(-1)).toBe("model 'myclaude' is not in this configuration: staying on sonnet");
  });
});

describe('/reasoning', () => {
  it('takes ON and Off in any case, as command names are', async () => {
    const { context, lines } = chat();
    await runSlashCommand(context, '/REASONING ON');
    expect(context.settings.reasoning).toBe(true);
    await runSlashCommand(context, '/reasoning Off');
    expect(context.settings.reasoning).toBe(false);
    expect(lines).toEqual(['reasoning on', 'reasoning off']);
  });
});
