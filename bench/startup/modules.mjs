// Preloaded (`--import`) by `bench/startup.ts --modules`: counts the modules the process loads (every
// file and built-in module through the module loader) and reports the count on fd 3 at exit.
import { writeSync } from 'node:fs';
import { registerHooks } from 'node:module';

let loaded = 0;
registerHooks({
  load(url, context, nextLoad) {
    loaded++;
    return nextLoad(url, context);
  },
});
process.on('exit', () => {
  try {
    writeSync(3, String(loaded));
  } catch {
    // No fd 3: run outside the bench.
  }
});
