/**
 * A fake Redis on a loopback port that speaks just enough RESP for the state store (INFO, PING,
 * SUBSCRIBE, HGETALL, GET, SET) and answers every admit script call (EVALSHA / EVAL with six keys)
 * with `admitReply()` as it stands at that moment: a test makes a Redis say what a real one cannot.
 */
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface FakeRedis {
  url: string;
  /** The raw RESP reply of the next admit calls (set it to change what they get). */
  admitReply: () => string;
  close(): Promise<void>;
}

const bulk = (text: string) => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;

/** A RESP array of bulk strings. */
export const respArray = (...items: string[]) => `*${items.length}\r\n${items.map(bulk).join('')}`;

/** One command of `buffer` (a RESP array of bulk strings), or undefined until it is whole. */
function parse(buffer: Buffer): { args: string[]; rest: Buffer } | undefined {
  const text = buffer.toString('latin1');
  if (!text.startsWith('*')) return undefined;
  const head = text.indexOf('\r\n');
  if (head < 0) return undefined;
  const count = Number(text.slice(1, head));
  const args: string[] = [];
  let at = head + 2;
  for (let index = 0; index < count; index++) {
    const end = text.indexOf('\r\n', at);
    if (end < 0) return undefined;
    const length = Number(text.slice(at + 1, end));
    if (text.length < end + 2 + length + 2) return undefined;
    args.push(text.slice(end + 2, end + 2 + length));
    at = end + 2 + length + 2;
  }
  return { args, rest: buffer.subarray(at) };
}

function answer(args: string[], fake: FakeRedis): string {
  const command = args[0]!.toUpperCase();
  if (command === 'INFO') return bulk('# Server\r\nredis_version:7.0.0\r\nloading:0\r\n');
  if (command === 'PING') return '+PONG\r\n';
  if (command === 'SUBSCRIBE') return `*3\r\n${bulk('subscribe')}${bulk(args[1] ?? '')}:1\r\n`;
  if (command === 'HGETALL') return '*0\r\n';
  if (command === 'GET') return '$-1\r\n';
  if ((command === 'EVALSHA' || command === 'EVAL') && args[2] === '6') return fake.admitReply();
  if (command === 'EVALSHA' || command === 'EVAL') return ':1\r\n';
  return '+OK\r\n';
}

export async function startFakeRedis(): Promise<FakeRedis> {
  const sockets = new Set<Socket>();
  const fake: FakeRedis = {
    url: '',
    admitReply: () => respArray('ok', String(Date.now())),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffer: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (let command = parse(buffer); command !== undefined; command = parse(buffer)) {
        buffer = command.rest;
        socket.write(answer(command.args, fake));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `redis://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
