/** close(), stream iteration and the default logger: the small promises, kept. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createConsoleLogger } from '../../core/logger.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { userText } from '../../core/transcript.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { createHttpAdapter } from './http-adapter.ts';
import { createTestDefinition } from './test-provider.ts';

const request: CanonicalRequest = { model: 'test:model', transcript: [userText('hi')], maxOutputTokens: 10 };
const script = {
  type: 'sse' as const,
  events: [{ data: { t: 'text', v: 'hello' } }, { data: { t: 'end' } }],
  enforce: false,
  allowNoAuth: true,
};

let emulator: Emulator;
beforeEach(async () => {
  emulator = await startEmulator();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await emulator.close();
});

describe('close()', () => {
  it('close() twice (and concurrently) resolves every time', async () => {
    emulator.enqueue(script);
    const adapter = createHttpAdapter(createTestDefinition(), {
      baseURL: emulator.url,
      apiKey: 'test-key-0000',
    });
    await adapter.complete(request).catch(() => {});
    await expect(Promise.all([adapter.close(), adapter.close()])).resolves.toBeDefined();
    await expect(adapter.close()).resolves.toBeUndefined();
  });
});

describe('one stream, one iterator', () => {
  it('a second iterator over one stream fails at once with a clear error; the first still gets everything', async () => {
    emulator.enqueue(script);
    const adapter = createHttpAdapter(createTestDefinition(), {
      baseURL: emulator.url,
      apiKey: 'test-key-0000',
    });
    const stream = adapter.stream(request);
    const first = stream[Symbol.asyncIterator]();
    const second = stream[Symbol.asyncIterator]();
    await expect(second.next()).rejects.toThrow(/already being iterated/);
    const types: string[] = [];
    for (let step = await first.next(); step.done !== true; step = await first.next())
      types.push(step.value.type);
    expect(types.at(-1)).toBe('finish');
    expect(types).toContain('text-delta');
    await adapter.close();
  });
});

describe('the default logger', () => {
  it('reports a repeated warning once per adapter, not on every call', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const logger = createConsoleLogger();
    for (let call = 0; call < 5; call++) {
      logger.warn('dropped a part the provider cannot take', {
        part: 'video',
        requestId: `r${call}`,
        sessionId: `s${call}`,
      });
    }
    logger.warn('dropped a part the provider cannot take', { part: 'audio', requestId: 'r9' });
    expect(write).toHaveBeenCalledTimes(2);
  });

  it('its level comes from the option, else SWITCHYARD_LOG_LEVEL', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    createConsoleLogger({ level: 'silent' }).warn('quiet', {});
    expect(write).not.toHaveBeenCalled();
    vi.stubEnv('SWITCHYARD_LOG_LEVEL', 'silent');
    createConsoleLogger().warn('quiet', {});
    expect(write).not.toHaveBeenCalled();
    vi.stubEnv('SWITCHYARD_LOG_LEVEL', 'debug');
    createConsoleLogger().debug?.('details', {});
    expect(write).toHaveBeenCalledTimes(1);
    createConsoleLogger({ level: 'warn' }).debug?.('details', {});
    expect(write).toHaveBeenCalledTimes(1);
  });
});

describe('a call without a session', () => {
  it('gets one session of its own, made when first read: the same one on every read, a new one per call', async () => {
    const seen: unknown[][] = [];
    const definition = createTestDefinition();
    const build = definition.buildRequest;
    definition.buildRequest = (built, context) => {
      seen.push([context.session, context.session]);
      return build(built, context);
    };
    emulator.enqueue(script);
    emulator.enqueue(script);
    const adapter = createHttpAdapter(definition, { baseURL: emulator.url, apiKey: 'test-key-0000' });
    await adapter.stream(request).result();
    await adapter.stream(request).result();
    await adapter.close();
    expect(seen).toHaveLength(2);
    expect(seen[0]![0]).toBe(seen[0]![1]);
    expect(seen[1]![0]).toBe(seen[1]![1]);
    expect(seen[0]![0]).not.toBe(seen[1]![0]);
    expect((seen[0]![0] as { id: string }).id).toMatch(/^ses_/);
  });
});
