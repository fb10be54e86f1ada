/**
 * One gateway instance in its own process, for the multi-instance tests: the config comes as JSON in
 * `GATEWAY_CONFIG`, the URL goes out as one JSON line on stdout, warnings as JSON lines on stderr.
 * SIGTERM closes it.
 */
import { createGateway } from '../../src/gateway/server.ts';

const config = JSON.parse(process.env.GATEWAY_CONFIG ?? '{}') as Record<string, unknown>;
const gateway = createGateway({
  config,
  accessLog: () => {},
  logger: { warn: (message, fields) => process.stderr.write(`${JSON.stringify({ message, ...fields })}\n`) },
});
const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
// The parent holds stdin open: when it goes away, so does this process (no orphans).
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
process.once('SIGTERM', () => {
  void server.close(0).then(() => process.exit(0));
});
