/**
 * The model listings' pages: Anthropic's `limit` / `after_id` / `before_id` (`has_more`,
 * `first_id`, `last_id`) and Gemini's `pageSize` / `pageToken` (`nextPageToken`), as their APIs
 * document them; the official SDKs' auto-pagination sees every model the key may use, once.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
const digest = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`;
/** Enough models (each listed by its id and its alias) to fill more than one default page of each protocol. */
const extra = Object.fromEntries(
  Array.from({ length: 30 }, (_, index) => [`openai:extra-model-${index}`, { aliases: [`extra-${index}`] }]),
);

beforeAll(async () => {
  harness = await startGatewayHarness(
    {
      keys: [
        { name: 'all', key: digest('all-key') },
        { name: 'few', key: digest('few-key'), models: ['extra-1', 'extra-2', 'extra-3', 'up-chat'] },
      ],
    },
    {},
    extra,
  );
});
afterAll(async () => {
  await harness?.close();
});

const anthropicHeaders = { 'x-api-key': 'all-key', 'anthropic-version': '2023-06-01' };
const getJson = async (path: string, headers: Record<string, string>) => {
  const response = await fetch(`${harness.server.url}${path}`, { headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
/** Every name the OpenAI listing (one page, no parameters) shows the key. */
const everyName = async (key: string) => {
  const { body } = await getJson('/v1/models', { authorization: `Bearer ${key}` });
  return (body.data as Array<{ id: string }>).map((model) => model.id);
};

it('Anthropic: limit, after_id and before_id page the listing; has_more, first_id and last_id as documented', async () => {
  const names = await everyName('all-key');
  expect(names.length).toBeGreaterThan(60);
  const first = await getJson('/v1/models', anthropicHeaders);
  // 20 by default.
  expect((first.body.data as unknown[]).length).toBe(20);
  expect(first.body).toMatchObject({ has_more: true, first_id: names[0], last_id: names[19] });
  const next = await getJson(
    `/v1/models?limit=5&after_id=${encodeURIComponent(names[19]!)}`,
    anthropicHeaders,
  );
  expect((next.body.data as Array<{ id: string }>).map((model) => model.id)).toEqual(names.slice(20, 25));
  expect(next.body).toMatchObject({ has_more: true, first_id: names[20], last_id: names[24] });
  const before = await getJson(
    `/v1/models?limit=3&before_id=${encodeURIComponent(names[2]!)}`,
    anthropicHeaders,
  );
  expect((before.body.data as Array<{ id: string }>).map((model) => model.id)).toEqual(names.slice(0, 2));
  expect(before.body).toMatchObject({ has_more: false, first_id: names[0], last_id: names[1] });
  const last = await getJson(
    `/v1/models?limit=1000&after_id=${encodeURIComponent(names.at(-2)!)}`,
    anthropicHeaders,
  );
  expect(last.body).toMatchObject({ has_more: false, first_id: names.at(-1), last_id: names.at(-1) });
});

it.each([
  ['limit=0', 'limit'],
  ['limit=1001', 'limit'],
  ['limit=abc', 'limit'],
  ['after_id=no-such-model', 'after_id'],
  ['before_id=no-such-model', 'before_id'],
  ['after_id=up-chat&before_id=up-chat', 'before_id'],
])('Anthropic: %s is a 400 in Anthropic’s shape', async (query, field) => {
  const { status, body } = await getJson(`/v1/models?${query}`, anthropicHeaders);
  expect(status).toBe(400);
  expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  expect((body.error as { message: string }).message).toContain(field);
});

it('Gemini: pageSize and pageToken page the listing (50 by default); nextPageToken only while models are left', async () => {
  const names = await everyName('all-key');
  const headers = { 'x-goog-api-key': 'all-key' };
  const first = await getJson('/v1beta/models', headers);
  expect((first.body.models as unknown[]).length).toBe(50);
  expect(typeof first.body.nextPageToken).toBe('string');
  const seen: string[] = [];
  let token: string | undefined;
  for (let page = 0; page < 20; page++) {
    const query = `pageSize=7${token === undefined ? '' : `&pageToken=${encodeURIComponent(token)}`}`;
    const { status, body } = await getJson(`/v1beta/models?${query}`, headers);
    expect(status).toBe(200);
    seen.push(...(body.models as Array<{ name: string }>).map((model) => model.name.slice('models/'.length)));
    token = body.nextPageToken as string | undefined;
    if (token === undefined) break;
  }
  expect(seen).toEqual(names);
});

it.each([['pageSize=-1'], ['pageSize=ten'], ['pageToken=not-a-token']])(
  'Gemini: %s is a 400 INVALID_ARGUMENT',
  async (query) => {
    const { status, body } = await getJson(`/v1beta/models?${query}`, { 'x-goog-api-key': 'all-key' });
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  },
);

it.each([['all-key'], ['few-key']])(
  'the official SDKs’ auto-pagination sees every model the key (%s) may use, once',
  async (key) => {
    const names = await everyName(key);
    const clients = createClients(harness.server.url, key);
    const anthropicIds: string[] = [];
    for await (const model of clients.anthropic.models.list()) anthropicIds.push(model.id);
    expect(anthropicIds).toEqual(names);
    const smallPages: string[] = [];
    for await (const model of clients.anthropic.models.list({ limit: 3 })) smallPages.push(model.id);
    expect(smallPages).toEqual(names);
    const geminiNames: string[] = [];
    for await (const model of await clients.google.models.list()) geminiNames.push(model.name!);
    expect(geminiNames).toEqual(names.map((name) => `models/${name}`));
    const geminiSmall: string[] = [];
    for await (const model of await clients.google.models.list({ config: { pageSize: 4 } }))
      geminiSmall.push(model.name!);
    expect(geminiSmall).toEqual(names.map((name) => `models/${name}`));
  },
);
