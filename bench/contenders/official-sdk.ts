/** Contender (d): each provider's official SDK streaming call, consumed the way its docs show. */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { benchTool, models, type Protocol } from '../payloads.ts';
import type { Contender, Outcome, Runner, Target } from './types.ts';
import { Collector } from './wire.ts';

const prompt = 'Write a long answer.';

/** `@anthropic-ai/sdk` `messages.create({ stream: true })`: iterates the raw stream events. */
function anthropicRunner(target: Target): Runner {
  const client = new Anthropic({ apiKey: 'bench-key', baseURL: target.root, maxRetries: 0 });
  const tools =
    target.scenario === 'tool'
      ? [{ name: benchTool.name, description: benchTool.description, input_schema: benchTool.schema }]
      : undefined;
  return {
    async run(): Promise<Outcome> {
      const stream = await client.messages.create({
        model: models.anthropic,
        max_tokens: 64_000,
        messages: [{ role: 'user', content: prompt }],
        stream: true,
        ...(tools === undefined ? {} : { tools: tools as unknown as Anthropic.Tool[] }),
      });
      const collector = new Collector('anthropic');
      for await (const event of stream) collector.add(event);
      return collector.finish();
    },
    async close() {},
  };
}

/** `openai` `chat.completions.create({ stream: true })`: iterates every chunk. */
function openaiRunner(target: Target): Runner {
  const client = new OpenAI({ apiKey: 'bench-key', baseURL: `${target.root}/v1`, maxRetries: 0 });
  const tools =
    target.scenario === 'tool'
      ? [
          {
            type: 'function' as const,
            function: {
              name: benchTool.name,
              description: benchTool.description,
              parameters: benchTool.schema,
            },
          },
        ]
      : undefined;
  return {
    async run(): Promise<Outcome> {
      const stream = await client.chat.completions.create({
        model: models.openai,
        messages: [{ role: 'user', content: prompt }],
        stream: true,
        stream_options: { include_usage: true },
        ...(tools === undefined ? {} : { tools: tools as unknown as OpenAI.ChatCompletionTool[] }),
      });
      const collector = new Collector('openai');
      for await (const chunk of stream) collector.add(chunk);
      return collector.finish();
    },
    async close() {},
  };
}

/** `openai` `responses.stream(...)`: iterates every event (the SDK also accumulates the response). */
function responsesRunner(target: Target): Runner {
  const client = new OpenAI({ apiKey: 'bench-key', baseURL: `${target.root}/v1`, maxRetries: 0 });
  const tools =
    target.scenario === 'tool'
      ? [
          {
            type: 'function' as const,
            name: benchTool.name,
            description: benchTool.description,
            parameters: benchTool.schema,
            strict: false,
          },
        ]
      : undefined;
  return {
    async run(): Promise<Outcome> {
      const stream = client.responses.stream({
        model: models.responses,
        input: prompt,
        ...(tools === undefined ? {} : { tools: tools as unknown as OpenAI.Responses.Tool[] }),
      });
      const collector = new Collector('responses');
      for await (const event of stream) collector.add(event);
      return collector.finish();
    },
    async close() {},
  };
}

/** `@google/genai` `models.generateContentStream`: iterates every response chunk. */
function geminiRunner(target: Target): Runner {
  const client = new GoogleGenAI({ apiKey: 'bench-key', httpOptions: { baseUrl: target.root } });
  const config =
    target.scenario === 'tool'
      ? {
          tools: [
            {
              functionDeclarations: [
                {
                  name: benchTool.name,
                  description: benchTool.description,
                  parametersJsonSchema: benchTool.schema,
                },
              ],
            },
          ],
        }
      : {};
  return {
    async run(): Promise<Outcome> {
      const stream = await client.models.generateContentStream({
        model: models.gemini,
        contents: prompt,
        config,
      });
      const collector = new Collector('gemini');
      for await (const chunk of stream) collector.add(chunk);
      return collector.finish();
    },
    async close() {},
  };
}

const labels: Record<Protocol, string> = {
  anthropic: '@anthropic-ai/sdk',
  openai: 'openai',
  responses: 'openai (responses.stream)',
  gemini: '@google/genai',
};

/** The official SDK of `protocol`; the same Collector as the floor (b) assembles text and tool input. */
export function createContender(protocol: Protocol): Contender {
  return {
    id: 'official-sdk',
    label: labels[protocol],
    async prepare(target: Target) {
      if (protocol === 'anthropic') return anthropicRunner(target);
      if (protocol === 'openai') return openaiRunner(target);
      if (protocol === 'responses') return responsesRunner(target);
      return geminiRunner(target);
    },
  };
}
