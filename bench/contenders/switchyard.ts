/** Contender (c): Switchyard's real adapter — transport, SSE decoder, stream parser, StreamBuilder, EventStream. */
import type { Adapter } from '../../src/core/adapter.ts';
import type { CanonicalRequest } from '../../src/core/request.ts';
import { benchTool, models, type Protocol } from '../payloads.ts';
import { type Contender, type Outcome, SkipContender, type Target } from './types.ts';

type AdapterFactory = (options: Record<string, unknown>) => Adapter;

const adapters: Record<Protocol, { module: string; factory: string; basePath: string }> = {
  anthropic: {
    module: '../../src/providers/anthropic/index.ts',
    factory: 'createAnthropic',
    basePath: '/v1',
  },
  openai: { module: '../../src/providers/openai-chat/index.ts', factory: 'createOpenAI', basePath: '/v1' },
  responses: {
    module: '../../src/providers/openai-responses/index.ts',
    factory: 'createOpenAIResponses',
    basePath: '/v1',
  },
  gemini: { module: '../../src/providers/gemini/index.ts', factory: 'createGemini', basePath: '/v1beta' },
};

/** Loads the adapter factory, or explains why it cannot (the adapter may not be written yet). */
async function loadFactory(protocol: Protocol): Promise<AdapterFactory> {
  const { module, factory } = adapters[protocol];
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(new URL(module, import.meta.url).href)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = code === 'ERR_MODULE_NOT_FOUND' ? 'not written yet' : (error as Error).message;
    throw new SkipContender(`src/providers/${module.split('/providers/')[1]}: ${why}`);
  }
  const create = loaded[factory];
  if (typeof create !== 'function') throw new SkipContender(`${module} does not export ${factory}`);
  return create as AdapterFactory;
}

function canonicalRequest(protocol: Protocol, withTool: boolean): CanonicalRequest {
  const request: CanonicalRequest = {
    // The Responses adapter is OpenAI's (adapter name `openai`).
    model: `${protocol === 'responses' ? 'openai' : protocol}:${models[protocol]}`,
    transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Write a long answer.' }] }],
    maxOutputTokens: 8192,
  };
  if (withTool)
    request.tools = [
      { name: benchTool.name, description: benchTool.description, inputSchema: benchTool.schema },
    ];
  return request;
}

/** Streams through `adapter.stream()`, iterates every event, then reads the built response. */
export function createContender(protocol: Protocol): Contender {
  return {
    id: 'switchyard',
    label: 'Switchyard',
    async prepare(target: Target) {
      const create = await loadFactory(protocol);
      const adapter = create({
        apiKey: 'bench-key',
        baseURL: target.root + adapters[protocol].basePath,
        maxRetries: 0,
        logger: { warn() {} },
      });
      const request = canonicalRequest(protocol, target.scenario === 'tool');
      return {
        async run(): Promise<Outcome> {
          const stream = adapter.stream(request);
          let events = 0;
          for await (const _event of stream) events++;
          const response = await stream.result();
          const texts: string[] = [];
          let toolInput: unknown;
          for (const part of response.content) {
            if (part.type === 'text') texts.push(part.text);
            else if (part.type === 'tool-call') toolInput = part.input;
          }
          return { text: texts.join(''), toolInput, events };
        },
        close: () => adapter.close(),
      };
    },
  };
}
