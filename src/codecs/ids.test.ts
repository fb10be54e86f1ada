import { describe, expect, it } from 'vitest';
import { createAnthropicMessageId, createChatCompletionId, randomHex, randomToken } from './ids.ts';

describe('provider-shaped ids', () => {
  it('draws tokens of the asked length from the alphabet, unique across pool refills', () => {
    const tokens = Array.from({ length: 2000 }, () => randomToken(24));
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(randomHex(7)).toMatch(/^[0-9a-f]{7}$/);
  });

  it('uses the whole alphabet', () => {
    const seen = new Set(Array.from({ length: 400 }, () => randomToken(16)).join(''));
    expect(seen.size).toBe(62);
  });

  it('keeps each provider id shape', () => {
    expect(createAnthropicMessageId()).toMatch(/^msg_01[A-Za-z0-9]{22}$/);
    expect(createChatCompletionId()).toMatch(/^chatcmpl-[A-Za-z0-9]{29}$/);
  });
});
