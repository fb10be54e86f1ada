import { describe, expect, it } from 'vitest';
import type { JsonObject } from './json.ts';
import { argumentsJson, argumentsText, argumentsTextKey } from './tool-arguments.ts';

describe('switchyard.arguments_text', () => {
  const text = '{"id": 1234567890123456789}';
  it('is sent as written when it parses to the input', () => {
    const call = { input: JSON.parse(text) as JsonObject, metadata: { [argumentsTextKey]: text } };
    expect(argumentsJson(call)).toBe(text);
    expect(argumentsText(call)).toBe(text);
  });

  it('is not taken over an input it does not parse to (metadata a caller wrote, an input edited since)', () => {
    const call = { input: { id: 1 }, metadata: { [argumentsTextKey]: '{"id": 2}' } };
    expect(argumentsJson(call)).toBe('{"id":1}');
    expect(argumentsText({ ...call, metadata: { [argumentsTextKey]: 'not json' } })).toBe('{"id":1}');
  });
});
