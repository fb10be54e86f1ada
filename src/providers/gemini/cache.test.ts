import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CanonicalRequest } from '../../core/request.ts';
import { type Item, systemText, userText } from '../../core/transcript.ts';
import { type Emulator, type ScriptedScript, startEmulator } from '../../testing/emulator/index.ts';
import { collect, emulatedGemini, finishOf } from './test-support.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});
afterEach(() => {
  vi.useRealTimers();
});

const tool = {
  name: 'lookup',
  description: 'Looks a term up',
  inputSchema: { type: 'object', properties: { term: { type: 'string' } }, required: ['term'] },
};

function cachedRequest(transcript: Item[], model = 'gemini-2.5-flash'): CanonicalRequest {
  return {
    model: `gemini:${model}`,
    transcript: [systemText('You are a careful librarian.'), ...transcript],
    tools: [tool],
    maxOutputTokens: 100,
    cache: { ttl: '5m' },
  };
}

const answer = (text: string): ScriptedScript => ({
  type: 'scripted',
  content: [{ type: 'text', text }],
  usage: { input: 10, cacheRead: 90, output: 3 },
});

function cacheCreations(since: number) {
  return emulator.requests.slice(since).filter((request) => request.path.endsWith('/cachedContents'));
}

function generateBodies(since: number) {
  return emulator.requests
    .slice(since)
    .filter((request) => request.path.includes(':'))
    .map((request) => request.body as Record<string, unknown>);
}

describe('explicit context caching', () => {
  it('creates the cache once for the stable prefix and reuses it on later turns', async () => {
    const since = emulator.requests.length;
    const { adapter } = emulatedGemini(emulator);
    const session = adapter.startSession();
    emulator.enqueue(answer('First.'));
    emulator.enqueue(answer('Second.'));
    const first = await adapter.complete(
      cachedRequest([
        userText('Find "atlas"'),
        { kind: 'assistant', parts: [{ type: 'text', text: 'Which?' }] },
        userText('Any'),
      ]),
      { session },
    );
    const second = await adapter.complete(
      cachedRequest([
        userText('Find "atlas"'),
        { kind: 'assistant', parts: [{ type: 'text', text: 'Which?' }] },
        userText('Any'),
        { kind: 'assistant', parts: [{ type: 'text', text: 'First.' }] },
        userText('And "globe"?'),
      ]),
      { session },
    );
    const creations = cacheCreations(since);
    expect(creations).toHaveLength(1);
    expect(creations[0]?.body).toMatchInlineSnapshot(`
      {
        "contents": [
          {
            "parts": [
              {
                "text": "Find "atlas"",
              },
            ],
            "role": "user",
          },
          {
            "parts": [
              {
                "text": "Which?",
              },
            ],
            "role": "model",
          },
        ],
        "model": "models/gemini-2.5-flash",
        "systemInstruction": {
          "parts": [
            {
              "text": "You are a careful librarian.",
            },
          ],
        },
        "tools": [
          {
            "functionDeclarations": [
              {
                "description": "Looks a term up",
                "name": "lookup",
                "parametersJsonSchema": {
                  "properties": {
                    "term": {
                      "type": "string",
                    },
                  },
                  "required": [
                    "term",
                  ],
                  "type": "object",
                },
              },
            ],
          },
        ],
        "ttl": "300s",
      }
    `);
    const [firstBody, secondBody] = generateBodies(since);
    const name = first.metadata?.['gemini.cachedContent'];
    expect(name).toMatch(/^cachedContents\//);
    expect(firstBody).toMatchInlineSnapshot(
      { cachedContent: expect.stringMatching(/^cachedContents\//) },
      `
      {
        "cachedContent": StringMatching /\\^cachedContents\\\\//,
        "contents": [
          {
            "parts": [
              {
                "text": "Any",
              },
            ],
            "role": "user",
          },
        ],
        "generationConfig": {
          "maxOutputTokens": 100,
        },
      }
    `,
    );
    expect(secondBody?.cachedContent).toBe(name);
    expect(secondBody).not.toHaveProperty('systemInstruction');
    expect(secondBody).not.toHaveProperty('tools');
    expect(secondBody?.contents).toHaveLength(3);
    expect(second.metadata?.['gemini.cachedContent']).toBe(name);
    expect(second.usage).toMatchObject({ input: 10, cacheRead: 90 });
  });

  it('refreshes the entry once it has expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const since = emulator.requests.length;
    const { adapter } = emulatedGemini(emulator);
    const session = adapter.startSession();
    emulator.enqueue(answer('a'));
    emulator.enqueue(answer('b'));
    emulator.enqueue(answer('c'));
    const first = await adapter.complete(cachedRequest([userText('one')]), { session });
    vi.setSystemTime(Date.now() + 60_000);
    const second = await adapter.complete(cachedRequest([userText('one')]), { session });
    expect(second.metadata?.['gemini.cachedContent']).toBe(first.metadata?.['gemini.cachedContent']);
    vi.setSystemTime(Date.now() + 5 * 60_000);
    const third = await adapter.complete(cachedRequest([userText('one')]), { session });
    expect(cacheCreations(since)).toHaveLength(2);
    expect(third.metadata?.['gemini.cachedContent']).not.toBe(first.metadata?.['gemini.cachedContent']);
  });

  it('a failed creation sends the call uncached with a WARN, and is not retried in the session', async () => {
    const since = emulator.requests.length;
    let attempts = 0;
    const refusing: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/cachedContents')) {
        attempts++;
        const error = {
          error: {
            code: 400,
            status: 'INVALID_ARGUMENT',
            message: 'Cached content is too small. total_token_count=40, min_total_token_count=1024',
          },
        };
        return new Response(JSON.stringify(error), {
          status: 400,
          headers: { 'content-type': 'application/json' },
        });
      }
      return fetch(input, init);
    };
    const { adapter, logger } = emulatedGemini(emulator, { fetch: refusing });
    const session = adapter.startSession();
    emulator.enqueue(answer('uncached'));
    emulator.enqueue(answer('still uncached'));
    const response = await adapter.complete(cachedRequest([userText('hi')]), { session });
    await adapter.complete(cachedRequest([userText('hi')]), { session });
    expect(response.content).toEqual([{ type: 'text', text: 'uncached' }]);
    expect(response.metadata?.['gemini.cachedContent']).toBeUndefined();
    const [body] = generateBodies(since);
    expect(body).toHaveProperty('systemInstruction');
    expect(body).toHaveProperty('tools');
    expect(body).not.toHaveProperty('cachedContent');
    expect(attempts).toBe(1);
    expect(logger.entries).toEqual([
      expect.objectContaining({
        message: 'prompt cache creation failed; the call proceeds uncached',
        fields: expect.objectContaining({
          errorClass: 'invalid_request',
          reason: expect.stringContaining('Cached content is too small'),
        }),
      }),
    ]);
  });

  it('a model without explicit caching goes uncached with a WARN and no cache call', async () => {
    const since = emulator.requests.length;
    const { adapter, logger } = emulatedGemini(emulator);
    emulator.enqueue(answer('lite'));
    await adapter.complete(cachedRequest([userText('hi')], 'gemini-2.0-flash-lite'));
    expect(cacheCreations(since)).toHaveLength(0);
    expect(logger.entries[0]?.message).toBe('prompt cache not used');
    expect(logger.entries[0]?.fields).toMatchObject({
      reason: 'model gemini-2.0-flash-lite has no prompt caching (capabilities.promptCaching is false)',
    });
  });

  it('streaming calls use the cache too', async () => {
    const since = emulator.requests.length;
    const { adapter } = emulatedGemini(emulator);
    emulator.enqueue(answer('streamed'));
    const session = adapter.startSession();
    const { events, error } = await collect(adapter.stream(cachedRequest([userText('hi')]), { session }));
    expect(error).toBeUndefined();
    expect(finishOf(events).metadata?.['gemini.cachedContent']).toMatch(/^cachedContents\//);
    expect(generateBodies(since)[0]?.cachedContent).toMatch(/^cachedContents\//);
  });
});
