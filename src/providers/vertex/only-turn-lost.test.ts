/**
 * A request whose only turn the converter leaves out whole (a URL image toward Claude on Vertex or
 * on Bedrock Converse, which fetch no URL) is refused before anything is sent, with the error a lost
 * last turn gets (`refuseLostLastTurn`, naming the turn, which the gateway turns into the client's
 * field); it went out as `messages: []`, which the host refuses without saying which part it was.
 */
import { describe, expect, it } from 'vitest';
import { isInvalidRequestError } from '../../core/errors/guards.ts';
import type { Item, Part } from '../../core/transcript.ts';
import { capabilitiesFor as bedrockCapabilities } from '../bedrock/capabilities.ts';
import { buildRequest as buildBedrockRequest } from '../bedrock/request.ts';
import { createTestContext } from '../bedrock/test-support.ts';
import { capabilitiesFor } from './capabilities.ts';
import { buildRequest } from './request.ts';

const image: Part = {
  type: 'media',
  modality: 'image',
  mimeType: 'image/png',
  data: { type: 'uri', uri: 'https://example.com/cat.png' },
};
const only: Item[] = [
  { kind: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
  { kind: 'user', parts: [image] },
];

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('did not throw');
}

describe('the only turn left out whole', () => {
  it('Claude on Vertex: refused naming the turn, not sent as messages: []', () => {
    const claude = 'claude-sonnet-4-5@20250929';
    const context = createTestContext('vertex', claude, capabilitiesFor(claude));
    const error = thrown(() =>
      buildRequest({ model: `vertex:${claude}`, transcript: only, maxOutputTokens: 10 }, context),
    );
    expect(isInvalidRequestError(error)).toBe(true);
    expect(error.message).toContain('nothing of the last user turn (transcript[1].parts[0])');
    expect(error.message).toContain('the request would have no message');
  });

  it('Bedrock Converse: refused the same way', () => {
    const model = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
    const context = createTestContext('bedrock', model, bedrockCapabilities(model));
    const error = thrown(() =>
      buildBedrockRequest({ model: `bedrock:${model}`, transcript: only, maxOutputTokens: 10 }, context),
    );
    expect(isInvalidRequestError(error)).toBe(true);
    expect(error.message).toContain('nothing of the last user turn (transcript[1].parts[0])');
  });
});
