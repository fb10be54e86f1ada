/**
 * The Switchyard gateway as a child process for bench/gateway.ts: routes `bench-model` to the mock
 * upstream given as argv[2] (an OpenAI Chat host), prints its URL, answers `cpu` on stdin with its
 * CPU time in µs.
 */
import { silentLogger } from '../src/core/logger.ts';
import { createGateway } from '../src/gateway/server.ts';

const upstream = process.argv[2]!;
const gateway = createGateway({
  logger: silentLogger,
  config: {
    builtins: false,
    adapters: {
      openai: { type: 'openai', base_url: `${upstream}/v1`, api_key: 'bench-upstream-key', max_retries: 0 },
    },
    models: { 'openai:gpt-4.1-mini': { aliases: ['bench-model'] } },
    gateway: { access_log: false },
  },
});
const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${server.url}\n`);
process.stdin.setEncoding('utf8');
process.stdin.on('data', (line: string) => {
  if (line.trim() === 'cpu') {
    const usage = process.cpuUsage();
    process.stdout.write(`cpu ${usage.user + usage.system}\n`);
  }
});
process.stdin.on('end', () => {
  void server.close(0).then(() => process.exit(0));
});
