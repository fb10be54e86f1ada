/**
 * The `model` label of the gateway's metrics when a glob reached the model, as the default config's
 * globs (`openai:gpt-*`, `anthropic:claude-*`) do for the names the SDKs send: a catalogued or
 * configured model is counted under its canonical id, however the client spelled it; any other
 * name the glob matched shares its provider's `other` series, so clients still add none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClients, type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness(
    {},
    {},
    { 'openai:gpt-*': {}, 'anthropic:claude-*': {}, 'responses:gpt-*': {} },
  );
});
afterAll(async () => {
  await harness?.close();
});

/** One Chat Completions call through the OpenAI SDK, naming `model`. */
async function chat(model: string): Promise<void> {
  harness.emulator.enqueue(scriptedText());
  await createClients(harness.server.url).openai.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'Hi' }],
  });
}

/** `requests_total`'s series for the Chat protocol, by model label: their counts. */
async function requestsByModel(): Promise<Map<string, number>> {
  const text = await (await fetch(`${harness.server.url}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const match of text.matchAll(
    /^switchyard_gateway_requests_total\{protocol="openai-chat",model="([^"]+)",status="200",route="generate"\} (\d+)$/gm,
  ))
    counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + Number(match[2]));
  return counts;
}

describe('metrics model labels through a glob', () => {
  it('a catalogued model reached through a glob (`gpt-4o`) is counted under its canonical id, one series with `openai:gpt-4o`; a configured one (`claude-sonnet-4-5`) too', async () => {
    await chat('gpt-4o');
    await chat('openai:gpt-4o');
    await chat('claude-sonnet-4-5');
    const counts = await requestsByModel();
    expect(counts.get('openai:gpt-4o')).toBe(2);
    expect(counts.get('anthropic:claude-sonnet-4-5')).toBe(1);
    expect(counts.has('openai:other')).toBe(false);
    const text = await (await fetch(`${harness.server.url}/metrics`)).text();
    expect(text).toMatch(/tokens_total\{protocol="openai-chat",model="openai:gpt-4o",kind="output"\} 4\b/);
  });

  it('names the glob matches that no catalog row or configured model has — made up, or a catalogued name with a date added — add no series: all under `openai:other`', async () => {
    const before = await requestsByModel();
    const names = [
      ...Array.from({ length: 12 }, (_, index) => `gpt-made-up-${index}`),
      'gpt-4o-2099-01-01',
      'openai:gpt-4o-2099-01-02',
    ];
    for (const name of names) await chat(name);
    const after = await requestsByModel();
    expect([...after.keys()].sort()).toEqual([
      'anthropic:claude-sonnet-4-5',
      'openai:gpt-4o',
      'openai:other',
    ]);
    expect(after.get('openai:other')! - (before.get('openai:other') ?? 0)).toBe(names.length);
    expect(after.get('openai:gpt-4o')).toBe(before.get('openai:gpt-4o'));
  });

  it('an adapter named otherwise than its provider (`responses`, an OpenAI Responses adapter): its catalogued models are counted under its own ids, the rest under `responses:other`', async () => {
    const before = await requestsByModel();
    for (const name of ['responses:gpt-4o', 'responses:gpt-4.1', 'responses:gpt-made-up']) await chat(name);
    const after = await requestsByModel();
    const added = (label: string) => (after.get(label) ?? 0) - (before.get(label) ?? 0);
    expect(added('responses:gpt-4o')).toBe(1);
    expect(added('responses:gpt-4.1')).toBe(1);
    expect(added('responses:other')).toBe(1);
  });
});
