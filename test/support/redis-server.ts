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

/** Starts `redis-server` on a free port; resolves once it answers PING (at most 10 s). */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-redis-'));
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    if (child !== undefined) return;
    const spawned = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', directory, '--save', '', '--appendonly', 'no'],
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
