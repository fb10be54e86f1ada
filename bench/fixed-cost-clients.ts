/**
 * The three clients of the fixed-cost benchmark (`fixed-cost.ts`) and its profile
 * (`fixed-cost-profile.ts`), each of the same loopback upstream (`server.ts`):
 *
 * - raw: undici `request` on a keep-alive `Agent` + `TextDecoder` + `eventsource-parser` + one
 *   `JSON.parse` per event, text joined once (the same per-event work as contenders/sse-parse.ts,
 *   without fetch's web-stream layers: Switchyard's transport dispatches on undici directly too);
 * - adapter: the protocol's Switchyard adapter, `adapter.stream(request)` iterated, then `result()`;
 * - front door: `createSwitchyard` → `sy.stream({ model: 'provider:name', … })` iterated, then `result()`.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createParser } from 'eventsource-parser';
import { Agent, request as undiciRequest } from 'undici';
import { requestBody, requestHeaders } from './contenders/request.ts';
import { createContender as adapterContender } from './contenders/switchyard.ts';
import { apiPath, type Contender, type Runner, type Target } from './contenders/types.ts';
import { Collector } from './contenders/wire.ts';
import { createPayload, providerTypeOf, models, type Payload, type Protocol } from './payloads.ts';

export type Client = 'raw' | 'adapter' | 'frontdoor';
export const clients: readonly Client[] = ['raw', 'adapter', 'frontdoor'];

/** The floor: undici `request` + eventsource-parser + `JSON.parse` per event. */
function rawContender(protocol: Protocol): Contender {
  return {
    id: 'sse-parse',
    label: 'undici + eventsource-parser',
    async prepare(target: Target): Promise<Runner> {
      const dispatcher = new Agent();
      const url = target.root + apiPath(protocol, models[protocol]);
      const headers = requestHeaders(protocol);
      const body = requestBody(protocol, target.scenario);
      return {
        async run() {
          const response = await undiciRequest(url, { method: 'POST', headers, body, dispatcher });
          if (response.statusCode !== 200) throw new Error(`raw: HTTP ${response.statusCode}`);
          const collector = new Collector(protocol);
          const parser = createParser({
            onEvent(message) {
              if (message.data !== '[DONE]') collector.add(JSON.parse(message.data));
            },
          });
          const decoder = new TextDecoder();
          for await (const chunk of response.body)
            parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
          parser.feed(decoder.decode());
          return collector.finish();
        },
        close: () => dispatcher.close(),
      };
    },
  };
}

/** The front-door contender: `createSwitchyard` with one adapter pointed at the bench server. */
function frontDoorContender(protocol: Protocol): Contender {
  return {
    id: 'switchyard',
    label: 'front door',
    async prepare(target: Target): Promise<Runner> {
      const { createProviderTypeTable } = await import('../src/registry/provider-type-table.ts');
      const { createSwitchyard } = await import('../src/switchyard.ts');
      const type = providerTypeOf[protocol];
      const definition = createProviderTypeTable().get(type)!;
      const sy = createSwitchyard({
        logger: { warn() {} },
        config: {
          builtins: false,
          adapters: {
            [type]: {
              type,
              api_key: 'bench-key',
              base_url: target.root + (definition.basePath ?? ''),
              max_retries: 0,
            },
          },
        },
      });
      const request = {
        model: `${type}:${models[protocol]}`,
        transcript: [
          { kind: 'user' as const, parts: [{ type: 'text' as const, text: 'Write a long answer.' }] },
        ],
        maxOutputTokens: 8192,
      };
      return {
        async run() {
          const turn = sy.stream(request);
          let count = 0;
          for await (const _event of turn) count++;
          const reply = await turn;
          return { text: reply.text, toolInput: undefined, events: count };
        },
        close: () => sy.close(),
      };
    },
  };
}

/** The contender of `client` for `protocol`. */
export function contenderOf(protocol: Protocol, client: Client): Contender {
  if (client === 'raw') return rawContender(protocol);
  return client === 'adapter' ? adapterContender(protocol) : frontDoorContender(protocol);
}

/**
 * `client`'s runner of `protocol`'s `events`-event text reply, delivered in one write by the
 * upstream at `root`, and the payload it must produce.
 */
export async function prepareRunner(
  protocol: Protocol,
  client: Client,
  root: string,
  events: number,
): Promise<{ runner: Runner; payload: Payload }> {
  const payload = createPayload(protocol, 'text', events);
  const target = { protocol, scenario: 'text', delivery: 'bulk', root, payload } as const;
  return { runner: await contenderOf(protocol, client).prepare(target), payload };
}

/** `--name=a,b` on the command line, as a list (undefined when absent). */
export function flag(name: string): string[] | undefined {
  const value = process.argv.find((argument) => argument.startsWith(`--${name}=`));
  return value?.slice(name.length + 3).split(',');
}

/** Starts the loopback upstream (`server.ts`) serving `events`-event replies; `root` is its text route. */
export async function startFixedCostUpstream(events: number): Promise<{ root: string; stop(): void }> {
  const upstream = spawn(
    process.execPath,
    [fileURLToPath(new URL('./server.ts', import.meta.url)), String(events)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve) =>
    createInterface({ input: upstream.stdout! }).once('line', resolve),
  );
  return {
    root: `${(JSON.parse(line) as { url: string }).url}/bulk/text`,
    stop: () => upstream.stdin!.end(),
  };
}
