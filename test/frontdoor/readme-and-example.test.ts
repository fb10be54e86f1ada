/** The README's front-door examples and examples/tool-conversation.ts run as written, against the emulator. */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../examples/tool-conversation.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';
import type { SwitchyardOptions } from '../../src/switchyard.ts';
import { type Emulator, startEmulator } from '../../src/testing/emulator/index.ts';
import { repoRoot } from '../support/fixtures.ts';
import { redirectFetch } from '../support/redirect-fetch.ts';

let emulator: Emulator;
let options: SwitchyardOptions;
const env = {
  ANTHROPIC_API_KEY: 'test-key-readme-a',
  OPENAI_API_KEY: 'test-key-readme-o',
  GEMINI_API_KEY: 'test-key-readme-g',
};

beforeAll(async () => {
  emulator = await startEmulator();
  options = { env, fetch: redirectFetch(emulator.url), logger: createMemoryLogger() };
});
afterAll(async () => {
  await emulator.close();
});

/** The code block after `<!-- readme-example: name -->`. */
function readmeExample(name: string): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const match = new RegExp(`<!-- readme-example: ${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (match === null) throw new Error(`README has no example ${name}`);
  return match[1]!;
}

/** Runs a README block as a module: the package import points at the source, the client at the emulator. */
async function runReadme(name: string): Promise<unknown[][]> {
  const logged: unknown[][] = [];
  const globals = globalThis as Record<string, unknown>;
  globals.__readmeOptions = options;
  globals.__readmeLog = (...values: unknown[]) => logged.push(values);
  const code = readmeExample(name)
    .replaceAll('createSwitchyard()', 'createSwitchyard(globalThis.__readmeOptions)')
    .replaceAll('console.log(', 'globalThis.__readmeLog(');
  const file = join(repoRoot, 'test/frontdoor', `.readme-${name}.ts`);
  const header = `import { z } from 'zod';\nimport { createSwitchyard, tool, userText } from '../../src/index.ts';\nvoid z; void tool; void userText;\n`;
  writeFileSync(file, `${header}${code}\nexport {};\n`);
  try {
    await import(file);
  } finally {
    rmSync(file, { force: true });
  }
  return logged;
}

describe('README', () => {
  it('quick start: three lines, a priced reply', async () => {
    emulator.enqueue({
      type: 'scripted',
      protocol: 'anthropic-messages',
      content: [{ type: 'text', text: 'Bonjour !' }],
    });
    const [line] = await runReadme('quick-start');
    expect(line?.[0]).toBe('Bonjour !');
    expect(line?.[1]).toMatchObject({
      currency: 'USD',
      pricingVersion: expect.stringContaining('genai-prices'),
    });
    expect(readmeExample('quick-start').trim().split('\n')).toHaveLength(3);
  });

  it('tool conversation: a dozen lines, a tool round-trip and a provider switch', async () => {
    const from = emulator.requests.length;
    emulator.enqueue({
      type: 'scripted',
      protocol: 'anthropic-messages',
      content: [{ type: 'tool-call', name: 'weather', input: { city: 'Paris' } }],
    });
    emulator.enqueue({
      type: 'scripted',
      protocol: 'openai-chat',
      content: [{ type: 'text', text: 'Yes, take one.' }],
    });
    const [line] = await runReadme('tool-conversation');
    expect(line?.[0]).toBe('Yes, take one.');
    expect(line?.[1]).toMatchObject({ currency: 'USD' });
    expect(emulator.requests.slice(from).map((request) => request.protocol)).toEqual([
      'anthropic-messages',
      'openai-chat',
    ]);
    expect(JSON.stringify(emulator.requests.at(-1)?.body)).toContain('rain in Paris');
    const lines = readmeExample('tool-conversation')
      .trim()
      .split('\n')
      .filter((text) => text.trim() !== '');
    expect(lines.length).toBeLessThanOrEqual(12);
  });
});

describe('examples/tool-conversation.ts', () => {
  it('two turns, three providers, a tool each turn, usage and cost — in at most 40 lines of user code', async () => {
    const from = emulator.requests.length;
    emulator.enqueue({
      type: 'scripted',
      protocol: 'anthropic-messages',
      content: [{ type: 'tool-call', name: 'weather', input: { city: 'Paris' } }],
      usage: { input: 300, output: 20 },
    });
    emulator.enqueue({
      type: 'scripted',
      protocol: 'openai-chat',
      content: [{ type: 'text', text: 'Yes: rain, 12°C.' }],
      usage: { input: 400, output: 10 },
    });
    emulator.enqueue({
      type: 'scripted',
      protocol: 'gemini',
      content: [{ type: 'tool-call', name: 'weather', input: { city: 'Oslo' } }],
      usage: { input: 500, output: 8 },
    });
    emulator.enqueue({
      type: 'scripted',
      protocol: 'gemini',
      content: [{ type: 'text', text: 'No umbrella: snow, -3°C.' }],
      usage: { input: 600, output: 9 },
    });
    const lines = await main(options);
    expect(lines[0]).toBe('turn 1 (openai:gpt-5-mini): Yes: rain, 12°C.');
    expect(lines[1]).toBe('turn 2 (gemini:gemini-2.5-flash): No umbrella: snow, -3°C.');
    expect(lines[2]).toMatch(/^tokens in\/out: 1800\/47, cost: \$0\.\d+$/);
    expect(emulator.requests.slice(from).map((request) => request.protocol)).toEqual([
      'anthropic-messages',
      'openai-chat',
      'gemini',
      'gemini',
    ]);
    expect(JSON.stringify(emulator.requests.at(-1)?.body)).toContain('snow, -3°C');

    const source = readFileSync(join(repoRoot, 'examples/tool-conversation.ts'), 'utf8').split('\n');
    const code = source.filter(
      (text) => text.trim() !== '' && !text.trim().startsWith('/**') && !text.trim().startsWith('//'),
    );
    expect(code.length).toBeLessThanOrEqual(40);
  });
});
