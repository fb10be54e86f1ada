/**
 * `switchyard serve [--config FILE] [--host H] [--port N] [--emulator]`: run the gateway until
 * SIGTERM/SIGINT, then shut down gracefully. `--emulator` serves the built-in emulator as every
 * upstream, so the gateway works offline with no provider keys.
 */
import { readConfigFile, type GatewayFileConfig } from '../gateway/config.ts';
import { createGateway } from '../gateway/server.ts';
import { createProviderTypeTable } from '../registry/provider-type-table.ts';
import { startEmulator } from '../testing/emulator/index.ts';
import type { Output } from './replay-command.ts';
import { waitForStop } from './stop-signal.ts';

/** Options of {@link runServe}. */
export interface ServeOptions {
  config?: string;
  host: string;
  port: number;
  emulator: boolean;
}

/** The config's adapters pointed at an emulator: every built-in protocol, a placeholder key. */
function emulatorAdapters(root: string): NonNullable<GatewayFileConfig['adapters']> {
  const providerTypes = createProviderTypeTable();
  const row = (type: string) => `${root}${providerTypes.get(type)?.basePath ?? ''}`;
  return {
    anthropic: { type: 'anthropic', base_url: row('anthropic'), api_key: 'emulator' },
    openai: { type: 'openai', base_url: row('openai'), api_key: 'emulator' },
    'openai-responses': { type: 'openai-responses', base_url: row('openai-responses'), api_key: 'emulator' },
    gemini: { type: 'gemini', base_url: row('gemini'), api_key: 'emulator' },
  };
}

/** Runs the gateway until a signal (or `stop`); returns the exit code. */
export async function runServe(options: ServeOptions, output: Output, stop?: AbortSignal): Promise<number> {
  const config: GatewayFileConfig = options.config === undefined ? {} : readConfigFile(options.config);
  const emulator = options.emulator ? await startEmulator() : undefined;
  if (emulator !== undefined) {
    emulator.setDefault({
      type: 'scripted',
      content: [{ type: 'text', text: 'Hello from the Switchyard emulator.' }],
    });
    config.adapters = { ...config.adapters, ...emulatorAdapters(emulator.url) };
  }
  const gateway = createGateway({ config, accessLog: (line) => output.stdout(JSON.stringify(line)) });
  let server;
  try {
    server = await gateway.listen({ host: options.host, port: options.port });
  } catch (error) {
    await emulator?.close();
    const code = (error as NodeJS.ErrnoException).code;
    output.stderr(
      `switchyard serve: ${code === 'EADDRINUSE' ? `port ${options.port} is already in use` : (error as Error).message}`,
    );
    return 1;
  }
  output.stdout(server.url);
  output.stderr(
    `switchyard serve: gateway on ${server.url}${emulator === undefined ? '' : ` (upstream: emulator at ${emulator.url})`} — Ctrl-C or SIGTERM to stop`,
  );
  // A second SIGINT or SIGTERM while draining ends the grace now: the calls still running are
  // cancelled (each ends with its in-band 503) and the process exits 0 as after a whole drain.
  // Listening from the start: a signal with no listener left would kill the process outright.
  let draining = false;
  let hurried = false;
  const hurry = () => {
    if (!draining || hurried) return;
    hurried = true;
    output.stderr('switchyard serve: second signal: ending the grace period now');
    void server.close(0);
  };
  process.on('SIGINT', hurry);
  process.on('SIGTERM', hurry);
  await waitForStop(stop);
  draining = true;
  output.stderr('switchyard serve: stopping (in-flight requests get the grace period)');
  await server.close().finally(() => {
    process.off('SIGINT', hurry);
    process.off('SIGTERM', hurry);
  });
  await gateway.switchyard.close();
  await emulator?.close();
  output.stderr('switchyard serve: stopped');
  return 0;
}
