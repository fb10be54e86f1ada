/**
 * A configured adapter's name (`work-claude`, `acct-a`) is its provider everywhere: the provider half
 * of `reply.model` (routable back), the tag of the reasoning, signatures and response ids its calls
 * make (never sent to another account: dropped with the WARN), its `providerOptions` key. Its replies
 * are priced as its provider's models.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { defaultPriceTable, reprice } from '../../src/pricing/index.ts';
import { userText } from '../../src/core/transcript.ts';
import { tool } from '../../src/schemas/structured.ts';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import { createSwitchyard } from '../../src/switchyard.ts';
import { type Emulator, protocolError, startEmulator } from '../../src/testing/index.ts';
import type { EmulatorProtocolId } from '../../src/testing/emulator/index.ts';
import { emulatorBaseURL } from '../support/provider-types.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());

const weather = tool({
  name: 'get_weather',
  description: 'The weather of a city.',
  input: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
});

/** One adapter of `type` on the emulator, with its own key. */
function account(type: string, key: string, options?: Record<string, unknown>) {
  const protocol = type === 'anthropic' ? 'anthropic' : type;
  return {
    type,
    base_url: emulatorBaseURL(protocol, emulator.url),
    api_key: key,
    max_retries: 0,
    ...(options === undefined ? {} : { options }),
  };
}

const lastBody = () => emulator.requests.at(-1)!.body as Record<string, unknown>;

describe('a configured adapter named otherwise than its type', () => {
  it("reports its own name in reply.model, which routes back to it, and is priced as its provider's model", async () => {
    const sy = createSwitchyard({
      config: { builtins: false, adapters: { 'work-claude': account('anthropic', 'sk-ant-work-0000') } },
    });
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'Hi.' }],
      usage: { input: 9, output: 2 },
    });
    const reply = await sy.complete({ model: 'work-claude:claude-sonnet-4-5', transcript: [userText('Hi')] });
    expect(reply.model).toBe('work-claude:claude-sonnet-4-5');
    expect(reply.provider).toBe('work-claude');
    expect(reply.usage.cost).toEqual(
      reprice(reply.usage, 'anthropic:claude-sonnet-4-5', defaultPriceTable()).cost,
    );
    expect(reply.usage.cost).toBeDefined();
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Again.' }] });
    const again = await sy.complete({ model: reply.model, transcript: [userText('Hi')] });
    expect(again.text).toBe('Again.');
    await sy.close();
  });

  it("takes providerOptions under its own name, and its type's key under them", async () => {
    const sy = createSwitchyard({
      config: { builtins: false, adapters: { 'work-claude': account('anthropic', 'sk-ant-work-0000') } },
    });
    const send = async (providerOptions: Record<string, Record<string, unknown>>) => {
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
      await sy.complete({
        model: 'work-claude:claude-sonnet-4-5',
        transcript: [userText('Hi')],
        providerOptions: providerOptions as never,
      });
      return lastBody().metadata;
    };
    expect(await send({ 'work-claude': { body: { metadata: { user_id: 'named' } } } })).toEqual({
      user_id: 'named',
    });
    expect(await send({ anthropic: { body: { metadata: { user_id: 'typed' } } } })).toEqual({
      user_id: 'typed',
    });
    expect(
      await send({
        anthropic: { body: { metadata: { user_id: 'typed' } } },
        'work-claude': { body: { metadata: { user_id: 'named' } } },
      }),
    ).toEqual({ user_id: 'named' });
    await sy.close();
  });

  it("a preset's host named otherwise (groq-eu of groq) is priced as groq's models and takes providerOptions.groq under its own", async () => {
    const sy = createSwitchyard({
      config: {
        builtins: false,
        adapters: {
          'groq-eu': {
            type: 'openai-compatible',
            preset: 'groq',
            base_url: emulatorBaseURL('openai', emulator.url),
            api_key: 'gsk-eu-0000',
            max_retries: 0,
          },
        },
      },
    });
    const send = async (providerOptions: Record<string, Record<string, unknown>>) => {
      emulator.enqueue({
        type: 'scripted',
        content: [{ type: 'text', text: 'ok' }],
        usage: { input: 9, output: 2 },
      });
      const reply = await sy.complete({
        model: 'groq-eu:llama-3.3-70b-versatile',
        transcript: [userText('Hi')],
        providerOptions: providerOptions as never,
      });
      return { reply, user: lastBody().user };
    };
    const { reply, user } = await send({ groq: { user: 'typed' } });
    expect(reply.model).toBe('groq-eu:llama-3.3-70b-versatile');
    expect(user).toBe('typed');
    expect(reply.usage.cost).toBeDefined();
    expect(reply.usage.cost).toEqual(
      reprice(reply.usage, 'groq:llama-3.3-70b-versatile', defaultPriceTable()).cost,
    );
    expect((await send({ groq: { user: 'typed' }, 'groq-eu': { user: 'named' } })).user).toBe('named');
    await sy.close();
  });

  it("created with a name, an adapter lists its models and answers under it, and takes its provider's ids too", async () => {
    const adapter = createAnthropic({
      name: 'work-claude',
      baseURL: emulatorBaseURL('anthropic', emulator.url),
      apiKey: 'sk-ant-work-0000',
      maxRetries: 0,
    });
    const listed = await adapter.listModels();
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((model) => model.id === `work-claude:${model.name}`)).toBe(true);
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Hi.' }] });
    const reply = await adapter.complete({
      model: 'anthropic:claude-sonnet-4-5',
      transcript: [userText('Hi')],
      maxOutputTokens: 64,
    });
    expect(reply.model).toBe('work-claude:claude-sonnet-4-5');
    expect((emulator.requests.at(-1)!.body as { model: string }).model).toBe('claude-sonnet-4-5');
    await adapter.close();
  });

  it("created with a name, the Anthropic adapter's own check opens the 1M window on a client's context-1m flag, as it sends the flag", async () => {
    const adapter = createAnthropic({
      name: 'work-claude',
      baseURL: emulatorBaseURL('anthropic', emulator.url),
      apiKey: 'sk-ant-work-0000',
      maxRetries: 0,
    });
    // ~300k tokens: past 1.5× Sonnet 4.5's 200k window, within its 1M one.
    const large = [userText('lorem ipsum dolor sit amet '.repeat(60_000))];
    for (const key of ['work-claude', 'anthropic']) {
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Hi.' }] });
      const reply = await adapter.complete({
        model: 'work-claude:claude-sonnet-4-5',
        transcript: large,
        maxOutputTokens: 64,
        providerOptions: { [key]: { clientBetas: ['context-1m-2025-08-07'] } } as never,
      });
      expect(reply.model, key).toBe('work-claude:claude-sonnet-4-5');
      expect(emulator.requests.at(-1)!.headers['anthropic-beta']).toBe('context-1m-2025-08-07');
    }
    await adapter.close();
  });

  const accounts: Array<[type: string, protocol: EmulatorProtocolId, model: string]> = [
    ['anthropic', 'anthropic-messages', 'claude-sonnet-4-5'],
    ['gemini', 'gemini', 'gemini-3-pro-preview'],
    ['openai-responses', 'openai-responses', 'gpt-5-mini'],
  ];

  it.each(accounts)(
    "%s: one account's reasoning signature is never sent to another account of the type: dropped with the WARN",
    async (type, protocol, model) => {
      const logger = createMemoryLogger();
      const sy = createSwitchyard({
        logger,
        config: {
          builtins: false,
          adapters: {
            'acct-a': account(type, 'key-aaaaaaaaaaaa'),
            'acct-b': account(type, 'key-bbbbbbbbbbbb'),
          },
        },
      });
      const chat = sy.conversation({
        model: `acct-a:${model}`,
        tools: [weather],
        reasoning: { effort: 'low' },
        maxOutputTokens: 4096,
      });
      emulator.enqueue({
        type: 'scripted',
        protocol,
        content: [
          { type: 'reasoning', text: 'Think.', signature: 'SIG-FROM-ACCOUNT-A' },
          {
            type: 'tool-call',
            name: 'get_weather',
            input: { city: 'Paris' },
            signature: 'CALLSIG-FROM-ACCOUNT-A',
          },
        ],
      });
      const first = await chat.send('Paris?');
      expect(first.model).toBe(`acct-a:${model}`);
      expect(chat.transcript.at(-1)!.parts.map((part) => (part as { provider?: string }).provider)).toEqual([
        'acct-a',
        'acct-a',
      ]);
      chat.addToolResults(first.toolCalls.map((call) => ({ call, output: 'sunny' })));
      chat.model = `acct-b:${model}`;
      emulator.enqueue({ type: 'scripted', protocol, content: [{ type: 'text', text: 'Sunny.' }] });
      const second = await chat.send();
      expect(second.model).toBe(`acct-b:${model}`);
      expect(JSON.stringify(lastBody())).not.toContain('FROM-ACCOUNT-A');
      expect(logger.entries.map((entry) => entry.fields?.reason)).toContain(
        'reasoning produced by acct-a cannot be verified by acct-b',
      );
      await sy.close();
    },
  );

  it("a fallback to another account of a stateful Responses adapter sends the whole conversation, not the first account's response id", async () => {
    const stateful = { state: 'previous-response' };
    const sy = createSwitchyard({
      config: {
        builtins: false,
        adapters: {
          'acct-a': account('openai-responses', 'sk-a-0000000000', stateful),
          'acct-b': account('openai-responses', 'sk-b-1111111111', stateful),
        },
        models: {
          'acct-a:gpt-5-mini': { aliases: ['gpt'], fallbacks: ['acct-b:gpt-5-mini'] },
          'acct-b:gpt-5-mini': {},
        },
        routing: { failure_threshold: 1000 },
      },
    });
    const chat = sy.conversation({ model: 'gpt', tools: [weather] });
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'tool-call', name: 'get_weather', input: { city: 'Paris' } }],
    });
    const first = await chat.send('Paris?');
    chat.addToolResults(first.toolCalls.map((call) => ({ call, output: 'rain' })));
    emulator.enqueue(protocolError('openai-responses', 'rate_limit'));
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Umbrella.' }] });
    const second = await chat.send();
    expect(second.text).toBe('Umbrella.');
    expect(second.model).toBe('acct-b:gpt-5-mini');
    const body = lastBody();
    expect(body.previous_response_id).toBeUndefined();
    expect((body.input as Array<{ type: string }>).map((item) => item.type)).toEqual([
      'message',
      'function_call',
      'function_call_output',
    ]);
    await sy.close();
  });
});
