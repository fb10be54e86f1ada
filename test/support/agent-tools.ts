/** Tools shared by the approval test and the process that resumes its paused run. */
import { appendFileSync } from 'node:fs';
import { z } from 'zod';
import { tool } from '../../src/agent/index.ts';

/** The tools of the approval test; each appends what it did to `logFile`. */
export function approvalTools(logFile: string) {
  const log = (line: string) => appendFileSync(logFile, `${process.pid} ${line}\n`);
  return [
    tool({
      name: 'list_files',
      input: z.object({}),
      execute: () => {
        log('list_files');
        return ['a.txt', 'b.txt'];
      },
    }),
    tool({
      name: 'write_file',
      input: z.object({ path: z.string(), content: z.string() }),
      needsApproval: true,
      execute: ({ path }) => {
        log(`write_file ${path}`);
        return `wrote ${path}`;
      },
    }),
    tool({
      name: 'delete_file',
      input: z.object({ path: z.string() }),
      needsApproval: ({ path }) => path !== 'scratch.tmp',
      execute: ({ path }) => {
        log(`delete_file ${path}`);
        return `deleted ${path}`;
      },
    }),
  ];
}
