// Preloaded into each contender (`--import`): reports the process's peak RSS (KB) and its CPU time
// (user + system, ms) on fd 3 at exit.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  try {
    const usage = process.resourceUsage();
    writeSync(3, `${usage.maxRSS} ${(usage.userCPUTime + usage.systemCPUTime) / 1000}`);
  } catch {
    // No fd 3: run outside the bench.
  }
});
