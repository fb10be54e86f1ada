/**
 * A real `redis-server` for tests: started on a free loopback port with a temporary directory (no
 * persistence), stopped by its PID. `stop()` then `start()` again on the same port simulates an
 * outage and a restart.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** A running (or stopped) test Redis. */
export interface TestRedis {
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** The server's PID while it runs. */
  readonly pid: number | undefined;
  /** Starts the server again on the same port (after `stop`). */
  start(): Promise<void>;
  /** Stops the server (SIGKILL by PID: an abrupt outage), and waits for it to exit. */
  stop(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

/** A free loopback port (asked from the OS, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** True when a TCP connection to the port succeeds and Redis answers PING. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (value: boolean) => {
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/** Options of {@link startRedis}. */
export interface TestRedisOptions {
  /** Keep the data set across `stop()`/`start()` (an append-only file synced on every write). */
  persistent?: boolean;
  /** Run as a one-node Redis Cluster owning every slot (multi-key commands must then share a slot). */
  cluster?: boolean;
  /** The server binary. Default `redis-server`. */
  binary?: string;
}

/** Makes a cluster-enabled server a one-node Cluster owning all 16 384 slots (kept in nodes.conf). */
async function claimAllSlots(port: number): Promise<void> {
  const client = new Redis(port, '127.0.0.1', { lazyConnect: true });
  try {
    await client.connect();
    await client.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
    const deadline = Date.now() + 10_000;
    while (!String(await client.call('CLUSTER', 'INFO')).includes('cluster_state:ok')) {
      if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not form a cluster`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    client.disconnect();
  }
}

/** Starts `redis-server` on a free port; resolves once it answers PING (at most 10 s). */
export async function startRedis(options: TestRedisOptions = {}): Promise<TestRedis> {
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-redis-'));
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    if (child !== undefined) return;
    const persistence = options.persistent
      ? ['--appendonly', 'yes', '--appendfsync', 'always']
      : ['--appendonly', 'no'];
    const cluster = options.cluster
      ? [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-announce-ip',
          '127.0.0.1',
        ]
      : [];
    const spawned = spawn(
      options.binary ?? 'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        directory,
        '--save',
        '',
        ...persistence,
        ...cluster,
      ],
      { stdio: 'ignore' },
    );
    child = spawned;
    spawned.once('exit', () => {
      if (child === spawned) child = undefined;
    });
    const deadline = Date.now() + 10_000;
    while (!(await ping(port))) {
      if (child === undefined || Date.now() > deadline)
        throw new Error(`redis-server did not start on ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function stop(): Promise<void> {
    const running = child;
    if (running === undefined || running.pid === undefined) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    process.kill(running.pid, 'SIGKILL');
    await exited;
    child = undefined;
  }

  await start();
  if (options.cluster) await claimAllSlots(port);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child?.pid;
    },
    start,
    stop,
    async close() {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
