/** `npm run demo`: the main job runs offline and every turn is accepted by the emulator's rules. */
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../src/cli/demo-command.ts';

describe('switchyard demo', () => {
  it('switches provider mid-session (Anthropic → OpenAI → Gemini → Anthropic) and exits 0', async () => {
    const lines: string[] = [];
    const code = await runDemo({ stdout: (line) => lines.push(line), stderr: (line) => lines.push(line) });
    expect(code).toBe(0);
    const text = lines.join('\n');
    expect(text).toMatch(/turn 1 · anthropic:.* finish tool-call \(tool_use\)/);
    expect(text).toMatch(/turn 2 · openai:.* finish completed \(stop\)/);
    expect(text).toMatch(/turn 3 · gemini:.* finish tool-call \(STOP\)/);
    expect(text).toMatch(/turn 4 · anthropic:.* finish completed \(end_turn\)/);
    expect(text).toContain('4 requests, each accepted');
    expect(text).toContain('reasoning produced by anthropic cannot be verified by openai');
  });
});
