/** Conformance case: the provider's own input-token count (`adapter.countInputTokens`), where an adapter has one. */
import assert from 'node:assert/strict';
import { AdapterError } from '../../core/errors/adapter-error.ts';
import { emulatedTokenCount } from '../emulator/builtin.ts';
import { protocolError } from '../emulator/protocol-errors.ts';
import { emulatorProtocols } from '../emulator/protocols.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { systemText, userText } from '../../core/transcript.ts';
import type { SuiteCase } from './types.ts';

export const tokenCountCases: SuiteCase[] = [
  {
    name: 'token-count',
    title:
      'countInputTokens (where the adapter has it): one call to the count endpoint, its number returned; a 5xx rejects classified, never retried',
    async run({ declared, emulator, options, request, createAdapter }) {
      const adapter = createAdapter({ maxRetries: 2 });
      const estimated = adapter.estimateInputTokens({
        transcript: request().transcript,
        model: options.model,
      });
      assert.ok(
        Number.isInteger(estimated) && estimated >= 0,
        `estimateInputTokens returned ${estimated}, not a non-negative integer`,
      );
      if (adapter.countInputTokens === undefined) return;
      const before = emulator.requests.length;
      const counted = await adapter.countInputTokens(request());
      const asked = emulator.requests.slice(before);
      // No count endpoint for this model (a Vertex partner model speaking Chat Completions): nothing
      // was sent. A protocol that has one (the emulator's table) is counted.
      if (counted === undefined) {
        const endpoint = emulatorProtocols[options.protocol].countEndpoint;
        assert.equal(
          endpoint,
          undefined,
          `${options.protocol} has a count endpoint, yet nothing was counted`,
        );
        return assert.deepEqual(asked, []);
      }
      assert.equal(asked.length, 1, 'one request to the count endpoint');
      assert.equal(
        counted,
        emulatedTokenCount(asked[0]!.body),
        `countInputTokens returned ${counted}, not the count endpoint's number`,
      );
      emulator.setCountScript(protocolError(options.protocol, 'server_error'));
      try {
        await assert.rejects(adapter.countInputTokens(request()), (error: unknown) => {
          assert.ok(AdapterError.isInstance(error));
          assert.equal(error.errorClass, 'server_error');
          return true;
        });
        assert.equal(emulator.requests.length, before + 2, 'a count that failed with a 5xx is never retried');
      } finally {
        emulator.setCountScript(undefined);
      }
      // The count is built from the request the generation would send: tools and system included.
      const fuller: Partial<CanonicalRequest> = {};
      if (declared.tools)
        fuller.tools = [
          {
            name: 'lookup_weather',
            inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
          },
        ];
      if (declared.systemPrompt)
        fuller.transcript = [systemText('Answer in one short sentence, please.'), userText('Hello')];
      if (Object.keys(fuller).length > 0) {
        const withMore = await adapter.countInputTokens(request(fuller));
        assert.ok(
          withMore !== undefined && withMore > counted,
          `the count with tools and a system prompt (${withMore}) is not above the count without them (${counted})`,
        );
      }
    },
  },
];
