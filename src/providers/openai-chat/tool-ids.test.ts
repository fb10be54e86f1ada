/** Host tool-id rules (Mistral's 9 alphanumerics) applied through the session map. */
import { describe, expect, it } from 'vitest';
import { ToolIdMap } from '../../core/tool-id-map.ts';
import { nineAlphanumericToolId, toolIdRules } from './tool-ids.ts';

describe('chat host tool-id rules', () => {
  it('rewrites a canonical id to 9 alphanumerics for Mistral, uniquely and stably', () => {
    const map = new ToolIdMap();
    const first = map.toProvider('mistral', 'tu_01ABCDEFGHJKMNPQRSTVWXYZ00', nineAlphanumericToolId);
    const second = map.toProvider('mistral', 'tu_01ABCDEFGHJKMNPQRSTVWXYZ01', nineAlphanumericToolId);
    expect(first).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(second).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(second).not.toBe(first);
    expect(map.toProvider('mistral', 'tu_01ABCDEFGHJKMNPQRSTVWXYZ00', nineAlphanumericToolId)).toBe(first);
  });

  it('keeps an id that already fits the rule', () => {
    expect(toolIdRules['nine-alphanumeric'].test('abc123XYZ')).toBe(true);
    expect(new ToolIdMap().toProvider('mistral', 'abc123XYZ', toolIdRules['nine-alphanumeric'])).toBe(
      'abc123XYZ',
    );
  });

  it('maps every quirk value to a rule', () => {
    expect(toolIdRules.anthropic.rewrite('a.b')).toBe('a_b');
    expect(toolIdRules.any.test('anything goes')).toBe(true);
  });
});
