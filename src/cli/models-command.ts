/** `switchyard models [--provider NAME] [--json] [--config FILE]`: every known model, its aliases, limits, prices and whether it is configured. */
import { closest } from '../core/closest.ts';
import { loadConfigFile } from '../registry/config.ts';
import { createSwitchyard } from '../switchyard.ts';
import { UsageError } from './args.ts';
import { modelRows, modelTable } from './chat/format.ts';
import type { Output } from './replay-command.ts';

/** The options of `switchyard models`. */
export interface ModelsOptions {
  provider?: string;
  config?: string;
  json: boolean;
}

/** Runs `models`; returns the exit code. */
export async function runModels(options: ModelsOptions, output: Output): Promise<number> {
  const { mcp_servers: _servers, ...config } =
    options.config === undefined ? {} : loadConfigFile(options.config);
  const sy = createSwitchyard({ config, logger: { warn: () => {} } });
  try {
    let listings = sy.models();
    if (options.provider !== undefined) {
      const providers = sy.providers().map((provider) => provider.name);
      if (!providers.includes(options.provider)) {
        const suggestion = closest(options.provider, providers);
        throw new UsageError(
          `unknown provider '${options.provider}'${suggestion === undefined ? ` (known: ${providers.join(', ')})` : ` (did you mean '${suggestion}'?)`}`,
        );
      }
      listings = listings.filter((listing) => listing.provider === options.provider);
    }
    const rows = await modelRows(sy, listings);
    if (options.json) output.stdout(JSON.stringify(rows, undefined, 2));
    else for (const line of modelTable(rows)) output.stdout(line);
    return 0;
  } finally {
    await sy.close();
  }
}
