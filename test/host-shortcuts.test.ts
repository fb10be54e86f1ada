/**
 * One host-shortcut style for every OpenAI host (issue #19): the protocol's factory takes the host's
 * preset — `createOpenAICompatible(presets.groq | azurePreset(…), options)` on Chat Completions,
 * `createOpenAIResponses(responsesPresets.xai | azureResponsesPreset(…), options)` on Responses. The
 * per-host factories of before are deprecated aliases that make the same adapter.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter } from 'switchyard-ai';
import { userText } from 'switchyard-ai';
import {
  azurePreset,
  createAzureOpenAI,
  createOpenAICompatible,
  presets,
} from 'switchyard-ai/openai-compatible';
import {
  azureResponsesPreset,
  createAzureOpenAIResponses,
  createOpenAIResponses,
  createOpenResponses,
  createXaiResponses,
  responsesPresets,
} from 'switchyard-ai/openai-responses';
import { type Emulator, startEmulator } from 'switchyard-ai/testing';
import { repoRoot } from './support/fixtures.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

/** What the host received for one call: path, query, key headers, body. */
async function sent(adapter: Adapter, model: string) {
  emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
  await adapter.complete({ model, transcript: [userText('Hi')], maxOutputTokens: 16 });
  await adapter.close();
  const { path, query, headers, body } = emulator.requests.at(-1)!;
  return { name: adapter.name, protocol: adapter.protocol, path, query, apiKey: headers['api-key'], body };
}

describe('one host-shortcut style: the protocol factory takes the host preset', () => {
  it('Responses on xAI, Open Responses and Azure: a preset, the same adapter as the deprecated factories', async () => {
    const baseURL = `${emulator.url}/v1`;
    const xai = await sent(
      createOpenAIResponses(responsesPresets.xai, { apiKey: 'k', baseURL }),
      'xai:grok-4',
    );
    expect(xai).toMatchObject({ name: 'xai', protocol: 'openai-responses', path: '/v1/responses' });
    expect(await sent(createXaiResponses({ apiKey: 'k', baseURL }), 'xai:grok-4')).toEqual(xai);
    const local = { ...responsesPresets['open-responses'], name: 'lmstudio' };
    const open = await sent(createOpenAIResponses(local, { apiKey: 'k', baseURL }), 'lmstudio:qwen3');
    expect(open).toMatchObject({ name: 'lmstudio', path: '/v1/responses' });
    expect(
      await sent(createOpenResponses({ name: 'lmstudio', apiKey: 'k', baseURL }), 'lmstudio:qwen3'),
    ).toEqual(open);
    const endpoint = { baseURL: `${emulator.url}/openai/v1`, apiVersion: '2025-04-01-preview' };
    const azure = await sent(
      createOpenAIResponses(azureResponsesPreset(endpoint), { apiKey: 'az' }),
      'azure:d1',
    );
    expect(azure).toMatchObject({
      name: 'azure',
      path: '/openai/v1/responses',
      query: { 'api-version': '2025-04-01-preview' },
      apiKey: 'az',
    });
    expect(await sent(createAzureOpenAIResponses({ ...endpoint, apiKey: 'az' }), 'azure:d1')).toEqual(azure);
    expect((await sent(createOpenAIResponses({ apiKey: 'k', baseURL }), 'openai:gpt-5-mini')).name).toBe(
      'openai',
    );
  });

  it('Chat Completions on Azure: azurePreset like presets.groq, the same adapter as createAzureOpenAI', async () => {
    const endpoint = { baseURL: `${emulator.url}/openai/v1` };
    const azure = await sent(createOpenAICompatible(azurePreset(endpoint), { apiKey: 'az' }), 'azure:d1');
    expect(azure).toMatchObject({
      name: 'azure',
      protocol: 'openai-chat',
      path: '/openai/v1/chat/completions',
    });
    expect(await sent(createAzureOpenAI({ ...endpoint, apiKey: 'az' }), 'azure:d1')).toEqual(azure);
    const groq = await sent(
      createOpenAICompatible(presets.groq, { apiKey: 'k', baseURL: `${emulator.url}/v1` }),
      'groq:llama-3.3-70b-versatile',
    );
    expect(groq).toMatchObject({ name: 'groq', protocol: 'openai-chat' });
  });

  it('the README shows only the one style', () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    for (const deprecated of [
      'createXaiResponses',
      'createOpenResponses',
      'createAzureOpenAIResponses',
      'createAzureOpenAI(',
    ])
      expect(readme.includes(deprecated), deprecated).toBe(false);
  });
});
