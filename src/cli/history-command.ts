/** `switchyard history [--search TEXT] [--json]`: the logged conversations, newest first. */
import { join } from 'node:path';
import { table, usdAbout } from './chat/format.ts';
import { oneLine } from './terminal-text.ts';
import { dataDirectory } from './chat/setup.ts';
import { openStore } from './chat/store.ts';
import type { Output } from './replay-command.ts';

/** The options of `switchyard history`. */
export interface HistoryOptions {
  search?: string;
  json: boolean;
}

/** Runs `history`; returns the exit code. */
export async function runHistory(options: HistoryOptions, output: Output): Promise<number> {
  const store = await openStore(join(dataDirectory(), 'chat.db'));
  if ('reason' in store) {
    output.stderr(`switchyard history: ${store.reason}`);
    return 1;
  }
  try {
    const found = store.list({ search: options.search, limit: 200 });
    if (options.json) {
      output.stdout(JSON.stringify(found, undefined, 2));
      return 0;
    }
    if (found.length === 0) {
      output.stderr(
        options.search === undefined ? 'no conversations yet' : `nothing matches '${options.search}'`,
      );
      return 0;
    }
    // Titles are a model conversation's first words, names and models what someone typed: never
    // escape sequences on the terminal (as the chat's own /history shows them).
    const rows = found.map((entry) => [
      oneLine(entry.id),
      oneLine(entry.name ?? '-'),
      entry.updatedAt.slice(0, 16).replace('T', ' '),
      oneLine(entry.model),
      String(entry.turns),
      usdAbout(entry.cost, entry.estimated),
      oneLine(entry.title),
    ]);
    for (const line of table([['id', 'name', 'updated', 'model', 'turns', 'cost', 'title'], ...rows]))
      output.stdout(line);
    output.stderr(`resume one with: switchyard chat --resume ID`);
    return 0;
  } finally {
    store.close();
  }
}
