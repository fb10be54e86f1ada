/**
 * A candidate its adapter cannot serve as configured (`Adapter.unservedReason`: Vertex in express
 * mode serves Gemini only, Bedrock's InvokeModel Claude only) is skipped with the adapter's reason, so the route falls over instead of
 * failing with the 400 the call would have been refused with; with no candidate left, the client
 * gets an `unsupported_model` invalid request naming the reason. Nothing is sent to Vertex.
 */
import { describe, expect, it } from 'vitest';
import { userText } from '../core/transcript.ts';
import { createBedrock } from '../providers/bedrock/index.ts';
import type { Switchyard } from '../switchyard.ts';
import { routingDecision, routingDecisionOfError } from './decision.ts';
import { createEmulatedSwitchyard } from '../../test/support/emulated.ts';
import { useRoutingEmulator } from '../../test/support/routing-emulator.ts';

let sy: Switchyard;
const emulator = useRoutingEmulator(() => sy);

const claude = 'vertex:claude-sonnet-4-5@20250929';

/** Vertex in express mode (a key, no project, no base URL), its Claude model falling back to OpenAI. */
function front(fallbacks = ['openai:gpt-4.1-mini']): Switchyard {
  sy = createEmulatedSwitchyard(emulator.url, {
    env: {},
    adapters: { openai: 'openai' },
    apiKey: 'test-key-unserved',
    config: {
      // Vertex is not on the emulator: express mode has no base URL.
      adapters: { vertex: { type: 'vertex', api_key: 'AIzaExpressRouteKey01', max_retries: 0 } },
      models: { [claude]: { aliases: ['partner'], fallbacks } },
    },
  });
  return sy;
}

const hello = { model: 'partner', transcript: [userText('Hello')] };
const text = (value: string) => ({
  type: 'scripted' as const,
  content: [{ type: 'text' as const, text: value }],
});

describe('a candidate its adapter cannot serve is skipped', () => {
  it('an express-mode Vertex partner model is skipped with the reason, the fallback serves (complete)', async () => {
    front();
    const from = emulator.requests.length;
    emulator.enqueue(text('from the fallback'));
    const reply = await sy.complete(hello);
    expect(reply.text).toBe('from the fallback');
    expect(reply.model).toBe('openai:gpt-4.1-mini');
    expect(emulator.requests.slice(from).map((request) => request.protocol)).toEqual(['openai-chat']);
    const [skipped, served] = routingDecision(reply)!.attempts;
    expect(skipped).toMatchObject({ model: claude, provider: 'vertex', outcome: 'skipped' });
    expect(skipped!.reason).toMatch(
      /^not served: vertex: model .*\(publisher anthropic\) is not served in express mode/,
    );
    expect(skipped!.reason).not.toContain('AIzaExpressRouteKey01');
    expect(served).toMatchObject({ model: 'openai:gpt-4.1-mini', outcome: 'served' });
  });

  it('the same for a stream', async () => {
    front();
    emulator.enqueue(text('streamed fallback'));
    const stream = sy.stream(hello);
    let deltas = '';
    for await (const event of stream) if (event.type === 'text-delta') deltas += event.delta;
    const reply = await stream.result();
    expect(deltas).toBe('streamed fallback');
    expect(routingDecision(reply)?.attempts.map((attempt) => attempt.outcome)).toEqual(['skipped', 'served']);
  });

  it('no candidate the adapters serve: an unsupported_model invalid request naming the reason, nothing sent', async () => {
    front([]);
    const from = emulator.requests.length;
    const error = await sy.complete(hello).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'invalid_request', providerCode: 'unsupported_model' });
    expect((error as Error).message).toContain(`${claude}: not served: `);
    expect((error as Error).message).toContain('express mode');
    expect(routingDecisionOfError(error)?.attempts).toHaveLength(1);
    expect(emulator.requests.length).toBe(from);
  });

  it('models() says which models the adapter cannot serve (unserved: its reason) once loadAdapters() has loaded it', async () => {
    await front().loadAdapters();
    const models = sy.models();
    const partner = models.find((model) => model.id === claude);
    expect(partner).toMatchObject({ configured: true });
    expect(partner?.unserved).toMatch(/not served in express mode/);
    const gemini = models.filter((model) => model.provider === 'vertex' && model.id.includes('gemini'));
    expect(gemini.length).toBeGreaterThan(0);
    expect(gemini.filter((model) => model.unserved !== undefined)).toEqual([]);
    expect(models.find((model) => model.id === 'openai:gpt-4.1-mini')?.unserved).toBeUndefined();
  });
});

describe('Bedrock InvokeModel serves Claude only', () => {
  const nova = 'aws:amazon.nova-pro-v1:0';

  it('a Nova model behind protocol invoke is skipped with the reason (the fallback serves), a direct call refused before any request', async () => {
    sy = createEmulatedSwitchyard(emulator.url, {
      env: {},
      adapters: {
        aws: {
          type: 'bedrock',
          api_key: 'ABSKinvokeRouteKey0001',
          options: { protocol: 'invoke', region: 'us-east-1' },
        },
        openai: 'openai',
      },
      apiKey: 'test-key-unserved',
      config: {
        models: { [nova]: { aliases: ['nova'], fallbacks: ['openai:gpt-4.1-mini'] } },
      },
    });
    const from = emulator.requests.length;
    emulator.enqueue(text('from the fallback'));
    const reply = await sy.complete({ model: 'nova', transcript: [userText('Hello')] });
    expect(reply.text).toBe('from the fallback');
    const [skipped] = routingDecision(reply)!.attempts;
    expect(skipped).toMatchObject({ model: nova, outcome: 'skipped' });
    expect(skipped!.reason).toMatch(
      /^not served: bedrock: model "amazon\.nova-pro-v1:0" is not served by protocol 'invoke'/,
    );
    expect(emulator.requests.slice(from).map((request) => request.protocol)).toEqual(['openai-chat']);
    const adapter = createBedrock({
      protocol: 'invoke',
      region: 'us-east-1',
      apiKey: 'ABSKinvokeRouteKey0001',
      baseURL: emulator.url,
      env: {},
      maxRetries: 0,
    });
    await expect(
      adapter.complete({
        model: 'bedrock:meta.llama3-70b-instruct-v1:0',
        transcript: [userText('Hello')],
        maxOutputTokens: 64,
      }),
    ).rejects.toMatchObject({ errorClass: 'invalid_request', providerCode: 'unsupported_model' });
    await adapter.close();
    expect(emulator.requests.length).toBe(from + 1);
  });
});
