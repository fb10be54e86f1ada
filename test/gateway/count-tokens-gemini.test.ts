/**
 * Gemini's `:countTokens` takes its body in either of Google's two forms: top-level `contents`, or
 * a whole `generateContentRequest` (what `@google/generative-ai` always sends), whose
 * `systemInstruction` and `tools` are counted too. Both at once is a 400, as is an inner `model`
 * naming another model than the path: the path's model is the one checked and counted.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
const digest = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`;

beforeAll(async () => {
  harness = await startGatewayHarness({
    keys: [
      { name: 'all', key: digest('all-key') },
      { name: 'gemini-only', key: digest('gemini-key'), models: ['up-gemini'] },
    ],
  });
});
afterAll(async () => {
  await harness?.close();
});

const contents = [{ role: 'user', parts: [{ text: 'Hello there, how are you today?' }] }];
const systemInstruction = { parts: [{ text: 'You are a terse assistant who answers in one word.' }] };
const tools = [
  {
    functionDeclarations: [
      {
        name: 'weather',
        description: 'The weather in a city',
        parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
      },
    ],
  },
];

interface Counted {
  totalTokens: number;
  error: { code: number; status: string; message: string };
}

const count = async (body: object, model = 'up-gemini', key = 'all-key') => {
  const response = await harness.post(`/v1beta/models/${model}:countTokens`, body, {
    'x-goog-api-key': key,
  });
  return { status: response.status, body: (await response.json()) as Counted };
};

it('the generateContentRequest form (as @google/generative-ai sends it) counts as the contents form does', async () => {
  const before = harness.emulator.requests.length;
  const plain = await count({ contents });
  const wrapped = await count({ generateContentRequest: { model: 'models/up-gemini', contents } });
  expect(plain.status).toBe(200);
  expect(wrapped).toEqual(plain);
  expect(plain.body.totalTokens).toBeGreaterThan(0);
  // An inner request without a model is the path's model's too.
  expect(await count({ generateContentRequest: { contents } })).toEqual(plain);
  // Each asked the upstream the same (its generateContentRequest form).
  const asked = harness.emulator.requests.slice(before).map((request) => request.body);
  expect(asked).toHaveLength(3);
  expect(new Set(asked.map((body) => JSON.stringify(body))).size).toBe(1);
});

it('its systemInstruction and tools are counted', async () => {
  const plain = await count({ generateContentRequest: { model: 'models/up-gemini', contents } });
  const withSystem = await count({
    generateContentRequest: { model: 'models/up-gemini', contents, systemInstruction },
  });
  const withTools = await count({
    generateContentRequest: { model: 'models/up-gemini', contents, systemInstruction, tools },
  });
  expect(withSystem.body.totalTokens).toBeGreaterThan(plain.body.totalTokens);
  expect(withTools.body.totalTokens).toBeGreaterThan(withSystem.body.totalTokens);
});

it('contents and generateContentRequest together is a 400 in Gemini’s error shape', async () => {
  const both = await count({ contents, generateContentRequest: { model: 'models/up-gemini', contents } });
  expect(both.status).toBe(400);
  expect(both.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
  expect(both.body.error.message).toMatch(/contents and generateContentRequest are mutually exclusive/);
});

it('an inner model naming another model than the path is a 400: the path’s model is the one checked and counted', async () => {
  const other = await count(
    { generateContentRequest: { model: 'models/up-chat', contents } },
    'up-gemini',
    'gemini-key',
  );
  expect(other.status).toBe(400);
  expect(other.body.error.status).toBe('INVALID_ARGUMENT');
  expect(other.body.error.message).toMatch(/generateContentRequest\.model 'models\/up-chat'/);
  // The key's model check is the path's: a model outside the key's list is a 403 whatever the inner one says.
  const refused = await count(
    { generateContentRequest: { model: 'models/up-gemini', contents } },
    'up-chat',
    'gemini-key',
  );
  expect(refused.status).toBe(403);
  const allowed = await count(
    { generateContentRequest: { model: 'models/up-gemini', contents } },
    'up-gemini',
    'gemini-key',
  );
  expect(allowed.status).toBe(200);
});

it('a generateContentRequest that is not an object is a 400 naming it', async () => {
  const response = await count({ generateContentRequest: 'hi' });
  expect(response.status).toBe(400);
  expect(response.body.error.message).toMatch(/generateContentRequest/);
});

it('an error inside generateContentRequest names its field there', async () => {
  const bad = await count({ generateContentRequest: { contents: [{ role: 'user', parts: 'x' }] } });
  expect(bad.status).toBe(400);
  expect(bad.body.error.message).toMatch(/^generateContentRequest\.contents\.0\.parts must be an array/);
  // The contents form's errors name top-level fields.
  const plain = await count({ contents: [{ role: 'user', parts: 'x' }] });
  expect(plain.body.error.message).toMatch(/^contents\.0\.parts must be an array/);
});
