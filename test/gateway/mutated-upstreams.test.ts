/**
 * Recorded upstream replies changed in one to three places (fast-check; a fixed seed, so a failure
 * replays): a JSON body, or a stream's events (one changed, dropped or repeated), served by the
 * emulator and delivered through the gateway to each inbound protocol. Whatever the upstream
 * sends, the client gets a reply or a classified failure in its own protocol — never a JavaScript
 * error's text, a 500 the upstream did not send, or a stream that stops as if complete.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inferProtocolFromFile } from '../../src/testing/emulator/routing.ts';
import type { EmulatorScript, SseEvent } from '../../src/testing/emulator/types.ts';
import { recordedDir } from '../support/fixtures.ts';
import {
  anthropicClient,
  type GatewayHarness,
  startGatewayHarness,
  type UpstreamProtocol,
  upstreams,
} from './harness.ts';
import { endsAsItsProtocolDoes, internalFault, mutate, mutations, propertyOptions } from './mutations.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

function recordings(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return recordings(path);
    return /\.(chunks\.txt|json)$/.test(entry.name) ? [path] : [];
  });
}

/** A recording of one of the four gateway protocols: a streamed one's events, or a whole one's body. */
interface Recording {
  file: string;
  protocol: UpstreamProtocol;
  body: unknown;
  events: unknown[] | undefined;
}

const files = recordings(recordedDir)
  .filter((file) => Object.hasOwn(upstreams, inferProtocolFromFile(file)))
  .sort()
  .flatMap((file): Recording[] => {
    const text = readFileSync(file, 'utf8');
    if (file.endsWith('.json')) {
      const body: unknown = JSON.parse(text);
      // Request/response pairs (a recording of both sides) are not a reply body.
      if (typeof body === 'object' && body !== null && 'request' in body) return [];
      return [{ file, protocol: inferProtocolFromFile(file) as UpstreamProtocol, body, events: undefined }];
    }
    const events = text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line): unknown => {
        try {
          return JSON.parse(line);
        } catch {
          return line;
        }
      });
    return [{ file, protocol: inferProtocolFromFile(file) as UpstreamProtocol, body: undefined, events }];
  });

const tool = { type: 'object', properties: { city: { type: 'string' } } };
/** Each inbound route's request for `model`, streamed or not. */
const clients = [
  (model: string, stream: boolean) => ({
    path: '/v1/chat/completions',
    headers: {},
    body: {
      model,
      stream,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: tool } }],
    },
  }),
  (model: string, stream: boolean) => ({
    path: '/v1/responses',
    headers: {},
    body: {
      model,
      stream,
      input: 'hi',
      tools: [{ type: 'function', name: 'get_weather', parameters: tool }],
    },
  }),
  (model: string, stream: boolean) => ({
    path: '/v1/messages',
    headers: anthropicClient,
    body: {
      model,
      stream,
      max_tokens: 1000,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'get_weather', input_schema: tool }],
    },
  }),
  (model: string, stream: boolean) => ({
    path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    headers: { 'x-goog-api-key': 'k' },
    body: {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      tools: [
        {
          functionDeclarations: [
            { name: 'get_weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } } } },
          ],
        },
      ],
    },
  }),
  (model: string) => ({
    path: '/switchyard/v1/stream',
    headers: {},
    body: { model, transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'hi' }] }] },
  }),
];

/** A stream's events with one to three changed: an event's JSON mutated, or the event dropped or repeated. */
const eventChanges = fc.array(
  fc.record({ at: fc.nat(), kind: fc.constantFrom('mutate', 'drop', 'repeat'), changes: mutations }),
  { minLength: 1, maxLength: 3 },
);

it('a changed upstream reply reaches every client as a reply or a classified failure', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.nat(files.length - 1),
      fc.nat(clients.length - 1),
      mutations,
      eventChanges,
      async (fileIndex, clientIndex, bodyChanges, streamChanges) => {
        const { protocol, body, events } = files[fileIndex]!;
        let script: EmulatorScript;
        if (events === undefined) script = { type: 'json', body: mutate(body, bodyChanges) };
        else {
          const changed = [...events];
          for (const change of streamChanges) {
            const at = change.at % changed.length;
            if (change.kind === 'drop') changed.splice(at, 1);
            else if (change.kind === 'repeat') changed.splice(at, 0, changed[at]);
            else changed[at] = mutate(changed[at], change.changes);
          }
          const named = protocol === 'anthropic-messages' || protocol === 'openai-responses';
          const frames = changed.map((event): SseEvent => {
            const type = (event as { type?: unknown } | null)?.type;
            const data = typeof event === 'string' ? event : JSON.stringify(event ?? null);
            return named && typeof type === 'string' ? { event: type, data } : { data };
          });
          if (protocol === 'openai-chat') frames.push({ data: '[DONE]' });
          script = { type: 'sse', events: frames };
        }
        // A stream recording to a streaming client, a whole one to a whole one: the upstream is
        // asked for what it sends (a stream sent for a whole request is only ever "not JSON").
        const client = clients[clientIndex]!(upstreams[protocol].alias, events !== undefined);
        harness.emulator.clear();
        harness.emulator.enqueue(script);
        const response = await harness.post(client.path, JSON.stringify(client.body), {
          authorization: 'Bearer k',
          ...client.headers,
        });
        const text = await response.text();
        if (process.env.MUTATION_SHOW !== undefined) console.log(JSON.stringify(script), '\n---\n', text);
        const where = `${files[fileIndex]!.file} → ${client.path} ${response.status}: ${text.slice(0, 300)}`;
        expect(response.status, where).not.toBe(500);
        expect(text, where).not.toMatch(internalFault);
        const streamed =
          client.path === '/switchyard/v1/stream' ||
          (client.body as { stream?: boolean }).stream === true ||
          client.path.includes('alt=sse');
        if (response.status === 200 && streamed)
          expect(endsAsItsProtocolDoes(client.path, text), where).toBe(true);
      },
    ),
    propertyOptions(400),
  );
}, 600_000);
