/**
 * An output schema whose root is not an object (a list, a string enum) on every host of Claude that
 * takes structured output — the Anthropic API, Vertex, Bedrock by InvokeModel — goes out as
 * `output_config.format` wrapped as `{ value }` (Claude, like Anthropic's own SDK, takes an object
 * root only; the emulator refuses another), and the reply is the value's own JSON, whole and streamed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../src/core/request.ts';
import { collectStream } from '../../src/testing/collect.ts';
import { type Emulator, startEmulator } from '../../src/testing/index.ts';
import { claudeHosts } from '../support/claude-hosts.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator?.close();
});

const hosts = claudeHosts(() => emulator.url, ['invoke']);

const list = '[{"name":"Ada"},{"name":"Grace"}]';

describe.each(hosts)('Claude on %s, a root array output schema', (_host, model, create) => {
  const request: CanonicalRequest = {
    model,
    transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Two pioneers.' }] }],
    maxOutputTokens: 64,
    outputSchema: {
      name: 'people',
      schema: {
        type: 'array',
        items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
    },
  };
  const script = () =>
    emulator.enqueue({
      type: 'scripted',
      chunkSize: 4,
      content: [{ type: 'text', text: `{"value": ${list}}` }],
    });
  const sentSchema = () =>
    (emulator.requests.at(-1)!.body as { output_config?: { format?: { schema?: unknown } } }).output_config
      ?.format?.schema;
  const wrapper = {
    type: 'object',
    properties: {
      value: {
        type: 'array',
        items: {
          type: 'object',
          properties: { name: { type: 'string' } },
          required: ['name'],
          additionalProperties: false,
        },
      },
    },
    required: ['value'],
    additionalProperties: false,
  };

  it('whole: sent wrapped as { value }, the reply is the list', async () => {
    const adapter = create();
    try {
      script();
      const reply = await adapter.complete(request);
      expect(sentSchema()).toEqual(wrapper);
      expect(reply.content).toEqual([{ type: 'text', text: list }]);
    } finally {
      await adapter.close();
    }
  });

  it('streamed: the same list, without the wrapper', async () => {
    const adapter = create();
    try {
      script();
      const { response, error } = await collectStream(adapter.stream(request));
      expect(error).toBeUndefined();
      expect(sentSchema()).toEqual(wrapper);
      expect(response?.content).toEqual([{ type: 'text', text: list }]);
    } finally {
      await adapter.close();
    }
  });
});

describe.each(hosts)('Claude on %s, JSON asked for by instruction', (_host, model, create) => {
  // A root array of free-form objects: no closed form, so an instruction describes the wrapper and
  // the reply is cleaned (the fence and the sentence taken off), then unwrapped.
  const request: CanonicalRequest = {
    model,
    transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Some objects.' }] }],
    maxOutputTokens: 64,
    outputSchema: { schema: { type: 'array', items: { type: 'object' } } },
  };
  const script = () =>
    emulator.enqueue({
      type: 'scripted',
      chunkSize: 4,
      content: [{ type: 'text', text: 'Here they are:\n```json\n{"value": [{"a": 1}]}\n```' }],
    });

  it.each([
    ['whole', false],
    ['streamed', true],
  ])('%s: the reply is the list alone', async (_mode, streamed) => {
    const adapter = create();
    try {
      script();
      const reply = streamed
        ? (await collectStream(adapter.stream(request))).response
        : await adapter.complete(request);
      const body = emulator.requests.at(-1)!.body as { output_config?: unknown; system?: unknown };
      expect(body.output_config).toBeUndefined();
      expect(JSON.stringify(body.system)).toContain('value');
      expect(reply?.content).toEqual([{ type: 'text', text: '[{"a": 1}]' }]);
    } finally {
      await adapter.close();
    }
  });
});
