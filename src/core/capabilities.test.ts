/** Capability declarations: what a request needs (with paths), media-type lists, user overrides, the override schema. */
import { describe, expect, it } from 'vitest';
import { capabilityOverridesSchema } from './capabilities-schema.ts';
import {
  acceptsMediaType,
  type Capabilities,
  capabilityUses,
  normalizeMediaType,
  withCapabilityOverrides,
} from './capabilities.ts';
import type { ToolCallId } from './ids.ts';
import { systemText, userText } from './transcript.ts';

const full: Capabilities = {
  images: true,
  audio: false,
  video: false,
  pdf: true,
  reasoning: false,
  tools: true,
  parallelToolCalls: true,
  structuredOutput: true,
  streaming: true,
  streamingToolCalls: true,
  promptCaching: false,
  systemPrompt: true,
  contextWindow: 1000,
  longContextWindow: 4000,
  maxOutputTokens: 100,
  imageMediaTypes: ['image/png'],
  audioMediaTypes: [],
  documentMediaTypes: ['application/pdf', 'text/*'],
  documentUrls: true,
  structuredOutputWithTools: true,
  assistantPrefill: true,
};

describe('capabilityUses', () => {
  it('reasoning off (effort none) needs no reasoning: a model without it may be asked not to reason', () => {
    const base = { model: 'm', maxOutputTokens: 10, transcript: [userText('go')] };
    expect(capabilityUses({ ...base, reasoning: { effort: 'none' } }).has('reasoning')).toBe(false);
    expect(capabilityUses({ ...base, reasoning: { effort: 'minimal' } }).has('reasoning')).toBe(true);
  });

  it('names where each needed capability is first used, tool-result parts included', () => {
    const id = 'c1' as ToolCallId;
    const uses = capabilityUses({
      model: 'm',
      maxOutputTokens: 10,
      tools: [{ name: 'run', inputSchema: { type: 'object' } }],
      reasoning: { effort: 'low' },
      transcript: [
        systemText('be brief'),
        userText('go'),
        { kind: 'assistant', parts: [{ type: 'tool-call', id, name: 'run', input: {} }] },
        {
          kind: 'tool',
          parts: [
            {
              type: 'tool-result',
              callId: id,
              isError: false,
              output: {
                type: 'parts',
                parts: [
                  {
                    type: 'media',
                    modality: 'audio',
                    mimeType: 'audio/wav',
                    data: { type: 'uri', uri: 'x' },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    expect(Object.fromEntries(uses)).toEqual({
      tools: 'tools',
      reasoning: 'reasoning',
      systemPrompt: 'transcript[0] (system)',
      audio: 'transcript[3].parts[0].output.parts[0]',
    });
  });
});

describe('media-type lists', () => {
  it('match whole types, globs, case and parameters aside; an empty list is not checked', () => {
    expect(normalizeMediaType('Image/PNG; charset=binary')).toBe('image/png');
    expect(acceptsMediaType(['image/png'], 'IMAGE/PNG')).toBe(true);
    expect(acceptsMediaType(['image/png'], 'image/pngx')).toBe(false);
    expect(acceptsMediaType(['text/*'], 'text/markdown')).toBe(true);
    expect(acceptsMediaType(['text/*'], 'application/json')).toBe(false);
    expect(acceptsMediaType([], 'anything/at-all')).toBe(true);
  });
});

describe('withCapabilityOverrides', () => {
  it('applies `capabilities`, then matching `models` globs in key order; without overrides it is the declared function', () => {
    const declared = () => full;
    expect(withCapabilityOverrides(declared, {})).toBe(declared);
    const resolve = withCapabilityOverrides(declared, {
      capabilities: { maxOutputTokens: 50, tools: false },
      models: { 'big-*': { maxOutputTokens: 500 }, 'big-x*': { tools: true } },
    });
    expect(resolve('small')).toMatchObject({ maxOutputTokens: 50, tools: false });
    expect(resolve('big-1')).toMatchObject({ maxOutputTokens: 500, tools: false });
    expect(resolve('big-x1')).toMatchObject({ maxOutputTokens: 500, tools: true });
    expect(full.maxOutputTokens).toBe(100);
  });
});

describe('capabilityOverridesSchema', () => {
  it('takes every capability (config files and JSON hosts can override each) and rejects unknown keys', () => {
    expect(Object.keys(capabilityOverridesSchema.shape).sort()).toEqual(Object.keys(full).sort());
    expect(capabilityOverridesSchema.parse(full)).toEqual(full);
    expect(capabilityOverridesSchema.safeParse({ imageTypes: [] }).success).toBe(false);
  });
});
