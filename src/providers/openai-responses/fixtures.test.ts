import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRecorded, withRecordedTier } from '../../../test/support/fixtures.ts';
import type { Adapter } from '../../core/adapter.ts';
import { isRateLimitError, isServerError } from '../../core/errors/guards.ts';
import { silentLogger } from '../../core/logger.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { reasoningOf, replayRecorded, textOf, toolCallsOf } from '../openai-chat/test-support.ts';
import { createOpenAIResponses, createOpenResponses, createXaiResponses } from './index.ts';
import { expectedUsage, oracleOf } from './test-support.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

const fast = { apiKey: 'test-key', maxRetries: 0, retryBaseDelay: 1, logger: silentLogger };
const adapters: Record<string, () => Adapter> = {
  'openai/responses': () => createOpenAIResponses({ ...fast, baseURL: `${emulator.url}/v1` }),
  'open-responses/responses': () => createOpenResponses({ ...fast, baseURL: `${emulator.url}/v1` }),
  'xai/responses': () => createXaiResponses({ ...fast, baseURL: `${emulator.url}/v1` }),
};

/** Recorded files whose replay is a classified failure, with what it must be. */
const failures: Record<string, (error: unknown) => boolean> = {
  // An in-band `error` event, then `response.failed`: the quota error, not retryable.
  'openai-error.1.chunks.txt': (error) =>
    isRateLimitError(error) && (error as { retryable: boolean }).retryable === false,
  'openai-error.1.json': (error) => isRateLimitError(error),
  // The recording's `response.created` line is cut off mid-object: a corrupt stream.
  'parallel-tool-call-wrapper.1.chunks.txt': (error) =>
    isServerError(error) && (error as { providerCode?: string }).providerCode === 'invalid_stream',
  'reasoning-model-temperature-error.json': (error) =>
    (error as { errorClass?: string }).errorClass === 'invalid_request',
};

describe.each(Object.keys(adapters))('recorded %s', (folder) => {
  const files = listRecorded(folder);

  it.each(files.map((file) => [basename(file), file]))('%s', async (name, file) => {
    const failure = failures[name];
    if (failure !== undefined && file.endsWith('.json'))
      emulator.enqueue({ type: 'replay', file, status: 400 });
    const adapter = adapters[folder]!();
    const result =
      failure !== undefined && file.endsWith('.json')
        ? await adapter
            .complete({ model: `${adapter.name}:test-model`, transcript: [], maxOutputTokens: 5 })
            .then(
              (response) => ({ response, error: undefined }),
              (error: unknown) => ({ response: undefined, error }),
            )
        : await replayRecorded(emulator, adapter, file);
    if (failure !== undefined) {
      expect(failure(result.error)).toBe(true);
      return;
    }
    expect(result.error).toBeUndefined();
    const oracle = oracleOf(file);
    const response = result.response!;
    expect(textOf(response)).toBe(oracle.text);
    expect(toolCallsOf(response).map((call) => call.name)).toEqual(oracle.functionCalls);
    const customs = response.content.flatMap((part) => (part.type === 'custom' ? [part.kind] : []));
    expect(customs).toEqual(oracle.customKinds);
    expect(response.content.filter((part) => part.type === 'reasoning')).toHaveLength(oracle.reasoningItems);
    expect(response.usage).toEqual(withRecordedTier(expectedUsage(oracle.usage, oracle.webSearches), file));
    expect(response.responseId).toBe(oracle.responseId);
    const expectedFinish = oracle.functionCalls.length > 0 ? 'tool-call' : 'completed';
    expect(response).toMatchObject({ finishReason: expectedFinish, rawFinishReason: oracle.status });
  });
});

describe('recorded responses: what each part keeps', () => {
  const find = (folder: string, name: string) =>
    listRecorded(folder).find((file) => basename(file) === name) as string;
  const openai = () => adapters['openai/responses']!();

  it('covers all 77 recorded files', () => {
    const counts = Object.keys(adapters).map((folder) => listRecorded(folder).length);
    expect(counts).toEqual([59, 7, 11]);
  });

  it('reasoning keeps encrypted_content as data, the item id and the summary, and its provider', async () => {
    const file = find('openai/responses', 'openai-reasoning-encrypted-content.1.json');
    const { response } = await replayRecorded(emulator, openai(), file);
    const reasoning = response!.content[0];
    expect(reasoning).toMatchObject({
      type: 'reasoning',
      provider: 'openai',
      metadata: { 'openai.item_id': 'rs_0f35ed53160b395301693cc95817ac8190b978637daea4987e' },
    });
    expect(reasoning?.type === 'reasoning' && reasoning.data?.startsWith('gAAAAABpPMlc')).toBe(true);
    expect(reasoningOf(response)).toMatch(/^\*\*Reporting final result\*\*/);
  });

  it('a stream carrying four responses is read up to the first terminal event', async () => {
    const file = find('openai/responses', 'openai-reasoning-encrypted-content.1.chunks.txt');
    const { response, events } = await replayRecorded(emulator, openai(), file);
    expect(response?.responseId).toBe('resp_01830d662ab3856501693c321345c88190b0de00f3b9975691');
    expect(events.filter((event) => event.type === 'finish')).toHaveLength(1);
    expect(toolCallsOf(response)).toEqual([{ name: 'calculator', input: { a: 12, b: 7, op: 'add' } }]);
  });

  it('url citations stay on the text part as annotations', async () => {
    const file = find('openai/responses', 'openai-web-search-tool.1.chunks.txt');
    const { response } = await replayRecorded(emulator, openai(), file);
    const text = response!.content.find((part) => part.type === 'text');
    const annotations = text?.metadata?.['openai.annotations'] as Array<{ type: string }>;
    expect(annotations.length).toBeGreaterThan(0);
    expect(annotations[0]).toMatchObject({ type: 'url_citation' });
  });

  it('item ids that change mid-stream (Copilot) still give one text part', async () => {
    const file = find('openai/responses', 'github-copilot-id-rotation.1.chunks.txt');
    const { response, events } = await replayRecorded(emulator, openai(), file);
    expect(events.filter((event) => event.type === 'text-start')).toHaveLength(1);
    expect(textOf(response)).toBe(oracleOf(file).text);
  });

  it('xAI reasoning text streams as reasoning', async () => {
    const file = find('xai/responses', 'xai-text-with-reasoning-streaming.1.chunks.txt');
    const { response } = await replayRecorded(emulator, adapters['xai/responses']!(), file);
    expect(reasoningOf(response).length).toBeGreaterThan(100);
    expect(response?.provider).toBe('xai');
  });

  it('a built-in tool call round-trips as a custom part carrying the item verbatim', async () => {
    const file = find('openai/responses', 'openai-mcp-tool-approval.1.json');
    const { response } = await replayRecorded(emulator, openai(), file);
    const approval = response!.content.find(
      (part) => part.type === 'custom' && part.kind === 'mcp_approval_request',
    );
    expect(approval).toMatchObject({
      provider: 'openai',
      data: { type: 'mcp_approval_request', server_label: expect.any(String) },
    });
  });
});
