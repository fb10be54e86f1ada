/** Conformance cases: text, tool calls, tool-id round trip, reasoning, capability fail-cleanly. */
import assert from 'node:assert/strict';
import { accumulateResponse } from '../../core/accumulator.ts';
import type { Item } from '../../core/transcript.ts';
import { collectStream } from '../collect.ts';
import type { EmulatorProtocolId, EmulatorScript } from '../emulator/types.ts';
import { assertStreamInvariants, findUsageViolations } from '../invariants.ts';
import { assertFields, finishOf, rejection, withoutMetadata } from './assertions.ts';
import type { SuiteCase } from './types.ts';
import { parseJson } from '../../core/json-text.ts';

/** Parsed JSON, or the text itself when it is not JSON (so a comparison fails with a message, not a SyntaxError). */
function parseJsonOrText(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}

const textScript = (protocol: EmulatorProtocolId): EmulatorScript => ({
  type: 'scripted',
  protocol,
  content: [{ type: 'text', text: 'Hello there, how can I help?' }],
  usage: { input: 11, output: 7 },
});

/** Each protocol's wire value for a reply stopped by the output cap. */
const maxTokensStops: Record<EmulatorProtocolId, string> = {
  'anthropic-messages': 'max_tokens',
  'vertex-anthropic': 'max_tokens',
  'bedrock-invoke': 'max_tokens',
  'bedrock-converse': 'max_tokens',
  'openai-chat': 'length',
  'openai-responses': 'max_output_tokens',
  gemini: 'MAX_TOKENS',
};

/** The id the emulator issues in the tool-id case: valid under every provider's id rule (9 alphanumerics). */
const issuedToolId = 'Abc123xyz';

export const basicCases: SuiteCase[] = [
  {
    name: 'text',
    title: 'streams text under the stream contract, and complete() returns the same response',
    async run({ adapter, emulator, logger, options, request }) {
      emulator.enqueue(textScript(options.protocol));
      const stream = adapter.stream(request());
      const { events, error } = await collectStream(stream);
      assert.equal(error, undefined);
      assertStreamInvariants(events);
      const streamed = finishOf(events);
      assert.equal(
        streamed.provider,
        adapter.name,
        `streamed finish: provider ${streamed.provider}, not the adapter's ${adapter.name}`,
      );
      assert.deepEqual(
        await stream.result(),
        streamed,
        'result() after the stream differs from its finish event',
      );
      assert.deepEqual(withoutMetadata(streamed.content), [
        { type: 'text', text: 'Hello there, how can I help?' },
      ]);
      assert.equal(streamed.finishReason, 'completed');
      if (streamed.metadata?.['switchyard.usage_estimated'] === true) {
        // A host that sends stream usage only in ways the emulator cannot know: estimated, with a WARN.
        assert.ok(streamed.usage.input > 0 && streamed.usage.output > 0);
        assert.ok(logger.entries.some((entry) => entry.message.includes('no usage')));
      } else {
        assertFields(streamed.usage, { input: 11, output: 7 }, 'streamed usage');
      }
      assert.deepEqual(await accumulateResponse(events), streamed);
      emulator.enqueue(textScript(options.protocol));
      const completed = await adapter.complete(request());
      assert.deepEqual(withoutMetadata(completed.content), withoutMetadata(streamed.content));
      assert.equal(completed.finishReason, streamed.finishReason);
      assertFields(completed.usage, { input: 11, output: 7 }, 'complete() usage');
      assert.deepEqual(findUsageViolations(completed.usage, 'complete() usage'), []);
      assert.equal(completed.provider, adapter.name);
    },
  },
  {
    name: 'usage',
    title: 'a streamed answer reports the same usage as its complete() twin, field by field',
    async run({ adapter, emulator, options, request }) {
      const script: EmulatorScript = {
        type: 'scripted',
        protocol: options.protocol,
        content: [{ type: 'text', text: 'The same answer, streamed and whole.' }],
        usage: { input: 120, output: 30, cacheRead: 40, cacheWrite: 20, reasoning: 8 },
      };
      emulator.enqueue(script);
      const streamed = await adapter.stream(request()).result();
      emulator.enqueue(script);
      const completed = await adapter.complete(request());
      // A host whose stream carries no usage the emulator can send is estimated (the text case).
      if (streamed.metadata?.['switchyard.usage_estimated'] === true) return;
      // What was billed, not only the same twice: the cache read, which every protocol carries; the
      // whole input (a protocol without cache writes counts them as input); the output at least the
      // answer's 30 (with its 8 of reasoning where the protocol counts them apart; the emulator writes
      // OpenAI's way, so a host that adds them to completion_tokens itself, xAI, reads 46).
      const billed = completed.usage;
      assert.equal(billed.cacheRead, 40, `complete() usage: cacheRead ${billed.cacheRead}, the answer's 40`);
      assert.equal(
        billed.input + billed.cacheRead + billed.cacheWrite,
        180,
        `complete() usage: input ${billed.input} + cacheRead ${billed.cacheRead} + cacheWrite ${billed.cacheWrite}, not the answer's 180`,
      );
      assert.ok(billed.output >= 30, `complete() usage: output ${billed.output}, less than the answer's 30`);
      const fields = new Set([...Object.keys(streamed.usage), ...Object.keys(completed.usage)]);
      for (const field of fields) {
        const inStream = (streamed.usage as unknown as Record<string, unknown>)[field];
        const whole = (completed.usage as unknown as Record<string, unknown>)[field];
        assert.deepEqual(
          inStream,
          whole,
          `usage.${field}: the stream reports ${String(inStream)}, its complete() twin ${String(whole)}`,
        );
      }
    },
  },
  {
    name: 'tool-call',
    title: 'streams a tool call: raw fragments, parsed input, finish reason tool-call, canonical id',
    applies: (declared) => declared.tools,
    async run({ adapter, declared, emulator, options, request }) {
      const input = {
        city: 'Paris',
        days: 3,
        options: { units: 'metric', include: ['wind', 'rain'] },
        exact: true,
        note: null,
      };
      const toolScript: EmulatorScript = {
        type: 'scripted',
        protocol: options.protocol,
        content: [{ type: 'tool-call', name: 'get_weather', input }],
        chunkSize: 5,
      };
      emulator.enqueue(toolScript);
      const tools = [{ name: 'get_weather', inputSchema: { type: 'object' } }];
      const { events, error } = await collectStream(adapter.stream(request({ tools })));
      assert.equal(error, undefined);
      assertStreamInvariants(events);
      const response = finishOf(events);
      assert.equal(response.finishReason, 'tool-call');
      const call = response.content.find((part) => part.type === 'tool-call');
      assert.ok(call?.type === 'tool-call', 'a tool-call part');
      assertFields(call, { name: 'get_weather', input }, 'tool call');
      assert.match(call.id, /^tu_/);
      const fragments = events.flatMap((event) => (event.type === 'tool-call-delta' ? [event.delta] : []));
      if (declared.streamingToolCalls)
        assert.ok(
          fragments.length > 0,
          'the adapter declares streamingToolCalls, but no tool-call-delta arrived',
        );
      if (fragments.length > 0)
        assert.deepEqual(
          parseJsonOrText(fragments.join('')),
          input,
          'the tool-call-delta fragments do not join into the final input',
        );
      emulator.enqueue(toolScript);
      const completed = await adapter.complete(request({ tools }));
      const completedCall = completed.content.find((part) => part.type === 'tool-call');
      assert.ok(completedCall?.type === 'tool-call', 'complete(): a tool-call part');
      assert.match(
        completedCall.id,
        /^tu_/,
        `complete() tool call id ${completedCall.id} is not canonical (tu_…, minted for every call)`,
      );
    },
  },
  {
    name: 'tool-id-round-trip',
    title: 'tool-id round trip: the next request carries the id the provider issued, never the canonical id',
    applies: (declared) => declared.tools,
    async run({ adapter, emulator, options, request }) {
      const session = adapter.startSession();
      emulator.enqueue({
        type: 'scripted',
        protocol: options.protocol,
        content: [{ type: 'tool-call', id: issuedToolId, name: 'lookup', input: { q: 'x' } }],
      });
      const tools = [{ name: 'lookup', inputSchema: { type: 'object' } }];
      const first = await adapter.stream(request({ tools }), { session }).result();
      const call = first.content.find((part) => part.type === 'tool-call');
      assert.ok(call?.type === 'tool-call', 'a tool-call part');
      emulator.enqueue({
        type: 'scripted',
        protocol: options.protocol,
        content: [{ type: 'text', text: 'done' }],
      });
      const transcript: Item[] = [
        ...request().transcript,
        { kind: 'assistant', parts: first.content },
        {
          kind: 'tool',
          parts: [
            {
              type: 'tool-result',
              callId: call.id,
              name: 'lookup',
              output: { type: 'text', text: 'found' },
              isError: false,
            },
          ],
        },
      ];
      const second = await adapter.complete(request({ tools, transcript }), { session });
      assert.deepEqual(withoutMetadata(second.content), [{ type: 'text', text: 'done' }]);
      // Expected from the wire, not from the adapter's own id map: the id the emulator issued.
      const wireBody = JSON.stringify(emulator.requests.at(-1)?.body);
      assert.ok(!wireBody.includes(call.id), 'the canonical id must not reach the wire');
      // Gemini responses carry no call ids; the other protocols must send back the one issued.
      if (options.protocol !== 'gemini')
        assert.ok(wireBody.includes(issuedToolId), 'the issued id goes back');
    },
  },
  {
    name: 'reasoning',
    title: 'streams reasoning before text',
    applies: (declared) => declared.reasoning,
    async run({ adapter, emulator, logger, options, request }) {
      const warningsFrom = logger.entries.length;
      emulator.enqueue({
        type: 'scripted',
        protocol: options.protocol,
        content: [
          { type: 'reasoning', text: 'Let me think.', signature: 'sig-abc' },
          { type: 'text', text: 'Answer.' },
        ],
      });
      const { events } = await collectStream(
        adapter.stream(request({ reasoning: { budgetTokens: 1024 }, maxOutputTokens: 4096 })),
      );
      const withReasoning = emulator.requests.at(-1)?.body;
      assertStreamInvariants(events);
      // The same request without reasoning must go out differently: the ask reached the wire.
      emulator.enqueue({
        type: 'scripted',
        protocol: options.protocol,
        content: [{ type: 'text', text: 'A.' }],
      });
      await adapter.stream(request({ maxOutputTokens: 4096 })).result();
      // A host with no reasoning control (a model that always reasons) sends nothing for it, and
      // says so in a WARN naming reasoning: the same body is then the right one.
      const saidDropped = logger.entries
        .slice(warningsFrom)
        .some((entry) => /reasoning/i.test(`${entry.message} ${JSON.stringify(entry.fields)}`));
      if (!saidDropped)
        assert.notDeepEqual(
          withReasoning,
          emulator.requests.at(-1)?.body,
          'reasoning (budgetTokens 1024) never reached the wire: the body equals the one sent without it, and no WARN said it was left out',
        );
      const response = finishOf(events);
      const first = response.content[0]?.type;
      assert.equal(
        first,
        'reasoning',
        `the reasoning the provider streamed was not read: the first part is ${String(first)}, not reasoning`,
      );
      assertFields(response.content[0], { type: 'reasoning', text: 'Let me think.' }, 'first part');
      // Chat Completions has no reasoning signature; every other protocol sends one back with the next
      // turn: a signature (Anthropic, Gemini) or encrypted content (OpenAI Responses: the part's data).
      if (options.protocol !== 'openai-chat') {
        const kept = response.content[0] as { signature?: string; data?: string };
        assert.ok(
          kept.signature === 'sig-abc' || kept.data === 'sig-abc',
          'the reasoning signature the provider sent (sig-abc) was not kept',
        );
      }
      assert.deepEqual(withoutMetadata(response.content).at(-1), { type: 'text', text: 'Answer.' });
    },
  },
  {
    name: 'finish-reasons',
    title: "maps the protocol's max-tokens stop to finish reason max-tokens, streamed and complete()",
    async run({ adapter, emulator, options, request }) {
      const wire = maxTokensStops[options.protocol];
      const script: EmulatorScript = {
        type: 'scripted',
        protocol: options.protocol,
        content: [{ type: 'text', text: 'Cut at the output' }],
        finishReason: wire,
      };
      emulator.enqueue(script);
      const { events } = await collectStream(adapter.stream(request()));
      assertStreamInvariants(events);
      const streamed = finishOf(events).finishReason;
      assert.equal(
        streamed,
        'max-tokens',
        `the provider stopped at max_tokens ("${wire}"): streamed finish reason ${streamed}, not max-tokens`,
      );
      emulator.enqueue(script);
      const completed = (await adapter.complete(request())).finishReason;
      assert.equal(
        completed,
        'max-tokens',
        `the provider stopped at max_tokens ("${wire}"): complete() finish reason ${completed}, not max-tokens`,
      );
    },
  },
  {
    name: 'capability-fail-cleanly',
    title:
      'capability fail-cleanly: a request needing an undeclared capability, an output above the limit or an untaken media type never reaches the wire',
    async run({ adapter, emulator, declared, request }) {
      // Limits are token counts, or 0 where the model is unknown (then the provider decides).
      assert.ok(Number.isInteger(declared.contextWindow) && declared.contextWindow >= 0, 'a context window');
      assert.ok(
        Number.isInteger(declared.maxOutputTokens) && declared.maxOutputTokens >= 0,
        'an output limit',
      );
      const before = emulator.requests.length;
      const invalid = await rejection(adapter.complete(request({ maxOutputTokens: 0 })), 'maxOutputTokens 0');
      assertFields(invalid, { errorClass: 'invalid_request' }, 'maxOutputTokens 0');
      if (declared.maxOutputTokens > 0) {
        const over = { maxOutputTokens: declared.maxOutputTokens + 1 };
        const error = await rejection(adapter.complete(request(over)), 'maxOutputTokens over the limit');
        assertFields(error, { providerCode: 'max_output_tokens_exceeded' }, 'maxOutputTokens over the limit');
      }
      if (
        declared.images &&
        declared.imageMediaTypes.length > 0 &&
        !declared.imageMediaTypes.includes('image/tiff')
      ) {
        const tiff: Item[] = [
          {
            kind: 'user',
            parts: [
              {
                type: 'media',
                modality: 'image',
                mimeType: 'image/tiff',
                data: { type: 'base64', data: 'AAAA' },
              },
            ],
          },
        ];
        const error = await rejection(adapter.complete(request({ transcript: tiff })), 'an image/tiff image');
        assertFields(error, { providerCode: 'unsupported_media_type' }, 'an image/tiff image');
      }
      if (!declared.images) {
        const transcript: Item[] = [
          {
            kind: 'user',
            parts: [
              {
                type: 'media',
                modality: 'image',
                mimeType: 'image/png',
                data: { type: 'uri', uri: 'https://example.com/a.png' },
              },
            ],
          },
        ];
        const error = await rejection(adapter.complete(request({ transcript })), 'an undeclared image');
        assertFields(error, { providerCode: 'unsupported_capability' }, 'an undeclared image');
      }
      assert.equal(emulator.requests.length, before, 'nothing reached the wire');
    },
  },
];
