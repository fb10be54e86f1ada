/** Gemini `:countTokens` bodies: an error inside `generateContentRequest` names its field there. */
import { describe, expect, it } from 'vitest';
import { RequestFieldError } from '../fields.ts';
import { decodeCountTokens } from './count-tokens.ts';
import { codecs } from '../index.ts';

const model = 'gemini-2.5-flash';
const decode = (request: unknown) => codecs.gemini.decodeRequest(request, { model, stream: false });
const errorOf = (body: unknown): RequestFieldError => {
  try {
    decodeCountTokens(body, model, decode);
  } catch (error) {
    if (error instanceof RequestFieldError) return error;
    throw error;
  }
  throw new Error('accepted');
};

describe('decodeCountTokens', () => {
  it.each([
    [{ contents: 5 }, 'generateContentRequest.contents'],
    [{ contents: [{ role: 'user', parts: 'x' }] }, 'generateContentRequest.contents.0.parts'],
    [{ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools: 'x' }, 'generateContentRequest.tools'],
  ])('an error inside generateContentRequest (%j) names %s, in its message too', (inner, field) => {
    const error = errorOf({ generateContentRequest: inner });
    expect(error.field).toBe(field);
    expect(error.message.startsWith(`${field} `)).toBe(true);
    expect(error.status).toBe(400);
  });

  it('a top-level body’s errors name top-level fields, and the wrapper’s own keep theirs', () => {
    expect(errorOf({ contents: 5 }).field).toBe('contents');
    expect(errorOf({ generateContentRequest: { model: 'models/other', contents: [] } }).field).toBe(
      'generateContentRequest.model',
    );
  });

  it('decodes a valid generateContentRequest', () => {
    const decoded = decodeCountTokens(
      { generateContentRequest: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] } },
      model,
      decode,
    );
    expect(decoded.request.transcript).toHaveLength(1);
  });
});
