/**
 * Makes a file read-only for this process even when it runs as root (which ignores file modes):
 * the mode first (0444), then, where that does not bind (root), the immutable attribute
 * (`chattr +i`, which binds root on ext4/xfs/btrfs), then, where neither is available, SQLite's own
 * read-only mark (a file-format write version above 2 in the database header: "the database file
 * must be treated as read-only"). The first two are checked, never assumed: the file must refuse
 * this process's writes.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, openSync, writeSync } from 'node:fs';

/** How the file was made read-only, and how to undo it (so its folder can be removed). */
export interface ReadOnlyFile {
  how: 'mode' | 'immutable' | 'sqlite-header';
  undo(): void;
}

/** True when this process can open `path` for writing. */
function writable(path: string): boolean {
  try {
    closeSync(openSync(path, 'r+'));
    return true;
  } catch {
    return false;
  }
}

/** Makes the SQLite database at `path` read-only for this process (see the file comment). */
export function makeReadOnly(path: string): ReadOnlyFile {
  chmodSync(path, 0o444);
  if (!writable(path)) return { how: 'mode', undo: () => chmodSync(path, 0o644) };
  try {
    execFileSync('chattr', ['+i', path], { stdio: 'ignore' });
  } catch {
    // No chattr, no CAP_LINUX_IMMUTABLE, or a filesystem without the attribute (tmpfs).
  }
  if (!writable(path)) {
    return {
      how: 'immutable',
      undo: () => {
        execFileSync('chattr', ['-i', path], { stdio: 'ignore' });
        chmodSync(path, 0o644);
      },
    };
  }
  // Byte 18 of the header: the file format write version (1 legacy, 2 WAL); above 2, read-only.
  const file = openSync(path, 'r+');
  writeSync(file, Buffer.from([3]), 0, 1, 18);
  closeSync(file);
  return { how: 'sqlite-header', undo: () => chmodSync(path, 0o644) };
}
