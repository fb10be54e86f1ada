/**
 * An unknown event type in either Bedrock stream (ConverseStream, InvokeModel's) is skipped with a
 * WARN that names it only when it is an identifier: the `:event-type` header is the server's text,
 * and a log line must not carry whatever it holds (a newline, a key, kilobytes).
 */
import { describe, expect, it } from 'vitest';
import type { RequestId } from '../../core/ids.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import { capabilitiesFor, invokeCapabilities } from './capabilities.ts';
import * as invoke from './invoke.ts';
import { createStreamParser } from './stream.ts';
import { createTestContext } from './test-support.ts';

const model = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const parsers = [
  ['ConverseStream', createStreamParser, capabilitiesFor(model)],
  ['InvokeModel', invoke.createStreamParser, invokeCapabilities(model)],
] as const;

function warningFor(
  parse: (typeof parsers)[number][1],
  capabilities: (typeof parsers)[number][2],
  event: string,
) {
  const context = createTestContext('bedrock', model, capabilities, true);
  const builder = new StreamBuilder(
    { requestId: 'req_test' as RequestId, provider: 'bedrock', model: `bedrock:${model}`, startedAt: 0 },
    () => {},
  );
  parse(context, builder).onEvent(event, '{}');
  return context.logger.entries.map((entry) => entry.fields.what);
}

describe('Bedrock streams: an unknown event type in the WARN', () => {
  it.each(parsers)('%s: an identifier is named, anything else is not', (_name, parse, capabilities) => {
    expect(warningFor(parse, capabilities, 'futureEvent')).toEqual(['an event of type futureEvent']);
    expect(warningFor(parse, capabilities, 'x\nFAKE LOG LINE sk-ant-api03-secret')).toEqual([
      'an event of type (not an identifier)',
    ]);
  });
});

describe('ConverseStream: a tool input for a block that is no tool call', () => {
  it('is named in a WARN, never dropped in silence', () => {
    const context = createTestContext('bedrock', model, capabilitiesFor(model), true);
    const builder = new StreamBuilder(
      { requestId: 'req_test' as RequestId, provider: 'bedrock', model: `bedrock:${model}`, startedAt: 0 },
      () => {},
    );
    const parser = createStreamParser(context, builder);
    parser.onEvent('messageStart', '{"role":"assistant"}');
    parser.onEvent('contentBlockDelta', '{"contentBlockIndex":0,"delta":{"text":"Hello"}}');
    parser.onEvent(
      'contentBlockDelta',
      '{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\\"q\\":1}"}}}',
    );
    expect(context.logger.entries.map((entry) => entry.fields.what)).toEqual([
      'a tool input for a block that is a text block',
    ]);
  });
});

describe('Bedrock streams: skipped content is warned once per kind, boundedly', () => {
  it.each(parsers)('%s: 5,000 repeats of a bad event are one WARN', (_name, parse, capabilities) => {
    const context = createTestContext('bedrock', model, capabilities, true);
    const builder = new StreamBuilder(
      { requestId: 'req_test' as RequestId, provider: 'bedrock', model: `bedrock:${model}`, startedAt: 0 },
      () => {},
    );
    const parser = parse(context, builder);
    for (let i = 0; i < 5000; i++) parser.onEvent('fooBar', '{}');
    expect(context.logger.entries.map((entry) => entry.fields.what)).toEqual(['an event of type fooBar']);
  });

  it('ConverseStream: payloads that are no object and unknown delta kinds once each; past 16 kinds one more WARN', () => {
    const context = createTestContext('bedrock', model, capabilitiesFor(model), true);
    const builder = new StreamBuilder(
      { requestId: 'req_test' as RequestId, provider: 'bedrock', model: `bedrock:${model}`, startedAt: 0 },
      () => {},
    );
    const parser = createStreamParser(context, builder);
    for (let i = 0; i < 5000; i++) {
      parser.onEvent('contentBlockDelta', '1');
      parser.onEvent('contentBlockDelta', '{"contentBlockIndex":0,"delta":{"zzz":1}}');
    }
    expect(context.logger.entries.map((entry) => entry.fields.what)).toEqual([
      'an event that is not an object',
      'a delta of kind zzz',
    ]);
    for (let i = 0; i < 5000; i++) parser.onEvent(`future${i}`, '{}');
    const whats = context.logger.entries.map((entry) => String(entry.fields.what));
    expect(whats).toHaveLength(17);
    expect(whats.at(-1)).toMatch(/more than 16 kinds/);
  });
});
