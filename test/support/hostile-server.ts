/**
 * A raw TCP "HTTP server" on 127.0.0.1 for fault tests: it reads one request (head and
 * Content-Length body, bounded), then hands the socket to the current fault, which writes whatever
 * bytes it likes. Every socket is tracked and destroyed by `close()`.
 */
import { createServer, type Server, type Socket } from 'node:net';

/** Writes a fault's answer on the socket of one request; `head` is the request head (latin1). */
export type FaultHandler = (socket: Socket, head: string) => void;

/** The raw server of a fault matrix. */
export interface HostileServer {
  url: string;
  /** The handler for the next requests (every request until it is replaced). */
  use(handler: FaultHandler): void;
  /** Requests received since the last `use`. */
  readonly requests: number;
  /** Destroys every open socket (between rows). */
  dropConnections(): void;
  close(): Promise<void>;
}

/** Largest request head plus body read before the connection is dropped (a bound, not a limit we test). */
const maxRequestBytes = 4 * 1024 * 1024;

/** Starts the raw server on an ephemeral loopback port. */
export async function startHostileServer(): Promise<HostileServer> {
  const sockets = new Set<Socket>();
  let handler: FaultHandler = (socket) => socket.destroy();
  let requests = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (buffer.length > maxRequestBytes) {
        socket.destroy();
        return;
      }
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffer.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffer.length < end + 4 + length) return;
      socket.off('data', onData);
      requests++;
      handler(socket, head);
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const dropConnections = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    use(next) {
      handler = next;
      requests = 0;
    },
    get requests() {
      return requests;
    },
    dropConnections,
    close() {
      dropConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A status line, headers (each pair written as is, so names may repeat) and the blank line. */
export function responseHead(
  status: number | string,
  headers: ReadonlyArray<readonly [string, string]>,
): string {
  const lines = headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return `HTTP/1.1 ${status} Fault\r\n${lines}\r\n`;
}

/**
 * A complete response: `content-length` (unless a header sets the framing) and `connection: close`
 * added, then the socket is ended.
 */
export function respond(
  socket: Socket,
  status: number,
  headers: ReadonlyArray<readonly [string, string]>,
  body: string | Buffer = '',
): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const framed = headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name));
  const all: Array<readonly [string, string]> = [...headers, ['connection', 'close']];
  if (!framed) all.push(['content-length', String(bytes.length)]);
  socket.end(Buffer.concat([Buffer.from(responseHead(status, all), 'latin1'), bytes]));
}

/**
 * Writes `bytes` one byte every `intervalMs` (a slowloris body); stops when the socket closes or
 * the bytes are out (so the loop is bounded by their length).
 */
export function drip(socket: Socket, bytes: Buffer, intervalMs: number): void {
  let index = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || index >= bytes.length) {
      clearInterval(timer);
      if (!socket.destroyed) socket.end();
      return;
    }
    socket.write(bytes.subarray(index, index + 1));
    index++;
  }, intervalMs);
  socket.on('close', () => clearInterval(timer));
}
