/**
 * examples/switchyard.yaml, the complete example of docs/config.md: it loads, every top-level key of
 * the config schema appears in it, and a request routes through it to the emulator.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchyard, userText } from 'switchyard-ai';
import { startEmulator, type Emulator } from 'switchyard-ai/testing';
import { createMemoryLogger } from '../src/core/logger.ts';
import { configSchema, loadConfigFile, parseConfigYaml } from '../src/registry/config.ts';
import { repoRoot } from './support/fixtures.ts';

const file = join(repoRoot, 'examples/switchyard.yaml');
const env = { WORK_ANTHROPIC_KEY: 'test-key-work', GROQ_API_KEY: 'test-key-groq' };

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

describe('the complete example config (examples/switchyard.yaml)', () => {
  it('loads, and holds every top-level key the config has', () => {
    const config = loadConfigFile(file);
    expect(Object.keys(config).sort()).toEqual(Object.keys(configSchema.shape).sort());
  });

  it('is what docs/config.md shows', () => {
    const docs = readFileSync(join(repoRoot, 'docs/config.md'), 'utf8');
    expect(docs).toContain(readFileSync(file, 'utf8').trim());
  });

  it('resolves its aliases and routes a request through its adapter', async () => {
    const text = readFileSync(file, 'utf8').replace('https://llm-proxy.example.com', emulator.url);
    const sy = createSwitchyard({ config: parseConfigYaml(text), env, logger: createMemoryLogger() });
    expect(sy.resolve('claude')).toMatchObject({ id: 'work-claude:claude-sonnet-4-5', tier: 'balanced' });
    expect(sy.resolve('claude').facts).toMatchObject({ tools: true, contextWindow: 200_000 });
    expect(sy.resolve('mine')).toMatchObject({ id: 'local:my-finetune-q4', configured: true });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'configured' }] });
    const reply = await sy.complete({ model: 'claude', transcript: [userText('Hi')] });
    expect(reply.text).toBe('configured');
    expect(emulator.requests.at(-1)?.headers).toMatchObject({
      'x-api-key': 'test-key-work',
      'x-team': 'research',
    });
    await sy.close();
  });
});
