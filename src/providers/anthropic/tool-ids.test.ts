/** Anthropic's tool-id rule applied through the session map. */
import { describe, expect, it } from 'vitest';
import { ToolIdMap } from '../../core/tool-id-map.ts';
import { toolIdRule } from './tool-ids.ts';

describe('anthropic tool-id rule', () => {
  it('replaces characters Anthropic rejects and keeps the result stable', () => {
    const map = new ToolIdMap();
    expect(map.toProvider('anthropic', 'call.with:odd/chars', toolIdRule)).toBe('call_with_odd_chars');
    expect(map.toProvider('anthropic', 'call.with:odd/chars', toolIdRule)).toBe('call_with_odd_chars');
  });

  it('digests an id longer than 64 characters into a valid one', () => {
    const long = 'x'.repeat(80);
    const rewritten = toolIdRule.rewrite(long);
    expect(rewritten).toMatch(/^t[a-zA-Z0-9]{40}$/);
    expect(toolIdRule.test(rewritten)).toBe(true);
    expect(toolIdRule.test(long)).toBe(false);
  });
});
