/**
 * The mock upstream of gateway-rig.ts in a process of its own (`startUpstreamProcess`): prints its
 * URL, answers `cpu` on stdin with its CPU time in µs, exits when stdin ends.
 */
import { startUpstream } from './gateway-rig.ts';

const upstream = await startUpstream();
process.stdout.write(`${upstream.url}\n`);
process.stdin.setEncoding('utf8');
process.stdin.on('data', (line: string) => {
  if (line.trim() === 'cpu') {
    const usage = process.cpuUsage();
    process.stdout.write(`cpu ${usage.user + usage.system}\n`);
  }
});
process.stdin.on('end', () => process.exit(0));
