// Preloaded into each contender (`--import`): reports the process's peak RSS (KB) on fd 3 at exit.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  try {
    writeSync(3, String(process.resourceUsage().maxRSS));
  } catch {
    // No fd 3: run outside the bench.
  }
});
