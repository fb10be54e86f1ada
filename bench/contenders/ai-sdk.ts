/** Contender (e): the Vercel AI SDK's `streamText` with its Anthropic, OpenAI (chat) and Google providers. */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { jsonSchema, type LanguageModel, streamText, tool } from 'ai';
import { benchTool, models, type Protocol } from '../payloads.ts';
import type { Contender, Outcome, Target } from './types.ts';

// The AI SDK prints call warnings to the console by default; they are not part of the work measured.
(globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = false;

function languageModel(protocol: Protocol, root: string): LanguageModel {
  if (protocol === 'anthropic')
    return createAnthropic({ apiKey: 'bench-key', baseURL: `${root}/v1` })(models.anthropic);
  if (protocol === 'openai')
    return createOpenAI({ apiKey: 'bench-key', baseURL: `${root}/v1` }).chat(models.openai);
  if (protocol === 'responses')
    return createOpenAI({ apiKey: 'bench-key', baseURL: `${root}/v1` }).responses(models.responses);
  return createGoogleGenerativeAI({ apiKey: 'bench-key', baseURL: `${root}/v1beta` })(models.gemini);
}

/**
 * A tool without `execute`: the SDK streams `tool-input-delta` parts, parses the input at the end and
 * emits one `tool-call` part, then stops (no second step).
 */
const tools = {
  [benchTool.name]: tool({
    description: benchTool.description,
    inputSchema: jsonSchema(benchTool.schema as Parameters<typeof jsonSchema>[0]),
  }),
};

/** `streamText(...).fullStream`, every part consumed. */
export function createContender(protocol: Protocol): Contender {
  return {
    id: 'ai-sdk',
    label: 'AI SDK',
    async prepare(target: Target) {
      const model = languageModel(protocol, target.root);
      const withTool = target.scenario === 'tool';
      const providerOptions =
        protocol === 'gemini' && withTool ? { google: { streamFunctionCallArguments: true } } : undefined;
      return {
        async run(): Promise<Outcome> {
          const result = streamText({
            model,
            prompt: 'Write a long answer.',
            maxRetries: 0,
            ...(withTool ? { tools } : {}),
            ...(providerOptions === undefined ? {} : { providerOptions }),
          });
          const texts: string[] = [];
          let toolInput: unknown;
          let events = 0;
          for await (const part of result.fullStream) {
            events++;
            if (part.type === 'text-delta') texts.push(part.text);
            else if (part.type === 'tool-call') toolInput = part.input;
            else if (part.type === 'error') throw part.error;
          }
          return { text: texts.join(''), toolInput, events };
        },
        async close() {},
      };
    },
  };
}
