/** Contender (c): Switchyard's real adapter — transport, SSE decoder, stream parser, StreamBuilder, EventStream. */
import type { CanonicalRequest } from '../../src/core/request.ts';
import {
  type ProviderTypeDefinition,
  createProviderTypeTable,
} from '../../src/registry/provider-type-table.ts';
import { providerTypeOf, benchTool, models, type Protocol } from '../payloads.ts';
import { type Contender, type Outcome, SkipContender, type Target } from './types.ts';

/** The built-in provider types, each importing its adapter only when a cell of its protocol runs. */
const providerTypes = createProviderTypeTable();

/** The provider-type row of `protocol`, its adapter's code loaded; a load failure skips the contender. */
async function loadApi(protocol: Protocol): Promise<ProviderTypeDefinition> {
  const definition = providerTypes.get(providerTypeOf[protocol]);
  if (definition === undefined)
    throw new SkipContender(`no provider-type row of type ${providerTypeOf[protocol]}`);
  try {
    await definition.load?.();
  } catch (error) {
    throw new SkipContender(`${definition.type}: ${(error as Error).message}`);
  }
  return definition;
}

function canonicalRequest(protocol: Protocol, withTool: boolean): CanonicalRequest {
  const request: CanonicalRequest = {
    model: models[protocol],
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
      const definition = await loadApi(protocol);
      const adapter = definition.create({
        name: definition.type,
        apiKey: 'bench-key',
        baseURL: target.root + (definition.basePath ?? ''),
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
