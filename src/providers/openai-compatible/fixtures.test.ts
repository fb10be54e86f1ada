import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRecorded, readRecorded, withRecordedTier } from '../../../test/support/fixtures.ts';
import type { FinishReason } from '../../core/finish-reason.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { reasoningOf, replayRecorded, textOf, toolCallsOf } from '../openai-chat/test-support.ts';
import { createOpenAICompatible, type PresetName, presets } from './index.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

/** What one recorded file must produce. Usage is `[input, cacheRead, output, reasoning]`. */
interface Expectation {
  model: string;
  textStart: string;
  reasoningStart: string;
  toolCalls: Array<{ name: string; input: object }>;
  finish: [FinishReason, string];
  usage: [number, number, number, number];
  citations?: number;
}

const weatherSF = [{ name: 'weather', input: { location: 'San Francisco' } }];

/** Every file of every host folder, with the facts read off the recordings by hand. */
const expectations: Record<string, Record<string, Expectation>> = {
  groq: {
    'groq-reasoning.chunks.txt': {
      model: 'groq:qwen/qwen3-32b',
      textStart: 'The word **"strawberry"** is s',
      reasoningStart: 'Okay, let me try to figure out',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [17, 0, 1107, 963],
    },
    'groq-reasoning.json': {
      model: 'groq:qwen/qwen3-32b',
      textStart: 'The word "strawberry" contains **3**',
      reasoningStart: 'Okay, so the user is asking how many',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [17, 0, 649, 570],
    },
    'groq-text.chunks.txt': {
      model: 'groq:llama-3.3-70b-versatile',
      textStart: 'Introducing "Luminaria"',
      reasoningStart: '',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [45, 0, 662, 0],
    },
    'groq-text.json': {
      model: 'groq:llama-3.3-70b-versatile',
      textStart: 'I\'d like to introduce "Luminaria"',
      reasoningStart: '',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [45, 0, 607, 0],
    },
    'groq-tool-call.chunks.txt': {
      model: 'groq:llama-3.3-70b-versatile',
      textStart: '',
      reasoningStart: '',
      toolCalls: [{ name: 'weather', input: {} }],
      finish: ['tool-call', 'tool_calls'],
      usage: [210, 0, 15, 0],
    },
    'groq-tool-call.json': {
      model: 'groq:llama-3.3-70b-versatile',
      textStart: '',
      reasoningStart: '',
      toolCalls: [{ name: 'weather', input: {} }],
      finish: ['tool-call', 'tool_calls'],
      usage: [218, 0, 15, 0],
    },
  },
  'deepseek/chat': {
    'deepseek-json.json': {
      model: 'deepseek:deepseek-reasoner',
      textStart: '{\n  "location": "San Francisco"',
      reasoningStart: 'I have the result from the weather tool.',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [175, 320, 144, 118],
    },
    'deepseek-reasoning.chunks.txt': {
      model: 'deepseek:deepseek-reasoner',
      textStart: 'The word "strawberry" contains',
      reasoningStart: 'We need to count the number of',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [18, 0, 219, 205],
    },
    'deepseek-reasoning.json': {
      model: 'deepseek:deepseek-reasoner',
      textStart: 'The word "strawberry" contains three',
      reasoningStart: "We are asked: \"How many 'r's",
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [18, 0, 345, 315],
    },
    'deepseek-text.chunks.txt': {
      model: 'deepseek:deepseek-chat',
      textStart: '## **Holiday Name:** Starlight',
      reasoningStart: '',
      toolCalls: [],
      finish: ['max-tokens', 'length'],
      usage: [13, 0, 400, 0],
    },
    'deepseek-text.json': {
      model: 'deepseek:deepseek-chat',
      textStart: '## **Holiday Name: Gratitude of Small Things Day',
      reasoningStart: '',
      toolCalls: [],
      finish: ['max-tokens', 'length'],
      usage: [13, 0, 300, 0],
    },
    'deepseek-tool-call.chunks.txt': {
      model: 'deepseek:deepseek-reasoner',
      textStart: '',
      reasoningStart: 'The user is asking for the weather',
      toolCalls: weatherSF,
      finish: ['tool-call', 'tool_calls'],
      usage: [19, 320, 83, 39],
    },
    'deepseek-tool-call.json': {
      model: 'deepseek:deepseek-reasoner',
      textStart: '',
      reasoningStart: 'The user is asking for the weather',
      toolCalls: weatherSF,
      finish: ['tool-call', 'tool_calls'],
      usage: [19, 320, 92, 48],
    },
  },
  xai: {
    'xai-text.chunks.txt': {
      model: 'xai:grok-3-mini',
      textStart: 'Hello',
      reasoningStart: 'First, the user said',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [1, 11, 291, 290],
    },
    'xai-text.json': {
      model: 'xai:grok-3-mini',
      textStart: 'Hello',
      reasoningStart: 'First, the user said: "Say a single word."',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [10, 2, 229, 228],
    },
    'xai-tool-call.chunks.txt': {
      model: 'xai:grok-3-mini',
      textStart: '',
      reasoningStart: 'First, the user is',
      toolCalls: weatherSF,
      finish: ['tool-call', 'tool_calls'],
      usage: [1, 290, 222, 196],
    },
    'xai-tool-call.json': {
      model: 'xai:grok-3-mini',
      textStart: '',
      reasoningStart: 'First, the user is asking about the weather',
      toolCalls: weatherSF,
      finish: ['tool-call', 'tool_calls'],
      usage: [47, 244, 215, 189],
    },
  },
  mistral: {
    'mistral-incremental-tool-call.chunks.txt': {
      model: 'mistral:zai-glm-5-2',
      textStart: '',
      reasoningStart: '',
      toolCalls: [{ name: 'webSearchTool', input: { query: 'current Berlin weather' } }],
      finish: ['tool-call', 'tool_calls'],
      usage: [43, 128, 14, 0],
    },
    'mistral-reasoning.chunks.txt': {
      model: 'mistral:magistral-medium-2507',
      textStart: '2 + 2 = 4',
      reasoningStart: 'The user is asking for 2+2. This is basic arithmetic. 2+2=4.',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [10, 0, 46, 0],
    },
    'mistral-reasoning.json': {
      model: 'mistral:magistral-medium-2507',
      textStart: '2 + 2 = 4',
      reasoningStart: 'The user is asking for 2+2. This is basic arithmetic. 2+2=4.',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [10, 0, 46, 0],
    },
    'mistral-text.chunks.txt': {
      model: 'mistral:mistral-small-latest',
      textStart: 'Hello, world! This is a test response.',
      reasoningStart: '',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [13, 0, 8, 0],
    },
    'mistral-text.json': {
      model: 'mistral:mistral-small-latest',
      textStart: '**Holiday Name: "World Kindness Day of Sharing"**',
      reasoningStart: '',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [13, 0, 434, 0],
    },
    'mistral-tool-call.chunks.txt': {
      model: 'mistral:mistral-small-latest',
      textStart: '',
      reasoningStart: '',
      toolCalls: weatherSF,
      finish: ['tool-call', 'tool_calls'],
      usage: [124, 0, 22, 0],
    },
    'mistral-tool-call.json': {
      model: 'mistral:mistral-small-latest',
      textStart: '',
      reasoningStart: '',
      toolCalls: weatherSF,
      finish: ['tool-call', 'tool_calls'],
      usage: [124, 0, 22, 0],
    },
  },
  moonshotai: {
    'moonshotai-reasoning.json': {
      model: 'moonshot:kimi-k2.6',
      textStart: 'There are three.',
      reasoningStart: 'Let me count the letters carefully.',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [10, 10, 30, 22],
    },
    'moonshotai-stream.chunks.txt': {
      model: 'moonshot:kimi-k3',
      textStart: 'Hello!',
      reasoningStart: 'Thinking aloud. ',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [9, 0, 12, 7],
    },
    'moonshotai-text.json': {
      model: 'moonshot:kimi-k3',
      textStart: 'Hello, world!',
      reasoningStart: '',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [9, 0, 5, 0],
    },
    'moonshotai-tool-call.json': {
      model: 'moonshot:kimi-k3',
      textStart: '',
      reasoningStart: '',
      toolCalls: [{ name: 'get_weather', input: { city: 'Paris' } }],
      finish: ['tool-call', 'tool_calls'],
      usage: [30, 0, 12, 0],
    },
  },
  perplexity: {
    'perplexity-citations.chunks.txt': {
      model: 'perplexity:sonar',
      textStart: 'The current population of **[2][3]',
      reasoningStart: '',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [10, 0, 336, 0],
      citations: 7,
    },
    'perplexity-citations.json': {
      model: 'perplexity:sonar',
      textStart: "The most recent estimates for San Francisco's city population",
      reasoningStart: '',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [10, 0, 251, 0],
      citations: 7,
    },
    'perplexity-text.chunks.txt': {
      model: 'perplexity:sonar',
      textStart: '**EcoVista Day**[1][5]',
      reasoningStart: '',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [11, 0, 434, 0],
      citations: 5,
    },
    'perplexity-text.json': {
      model: 'perplexity:sonar',
      textStart: '**EcoVista Day** is a new annual holiday',
      reasoningStart: '',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [11, 0, 392, 0],
      citations: 6,
    },
  },
  alibaba: {
    'alibaba-reasoning.chunks.txt': {
      model: 'alibaba:qwen3-max',
      textStart: 'The word **"strawberry"** cont',
      reasoningStart: "We are asked: \"How many 'r's",
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [24, 0, 1355, 1084],
    },
    'alibaba-reasoning.json': {
      model: 'alibaba:qwen3-max',
      textStart: 'The word **"strawberry"** contains **3**',
      reasoningStart: "We are asked: \"How many 'r's",
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [24, 0, 1668, 1353],
    },
    'alibaba-text.chunks.txt': {
      model: 'alibaba:qwen3-max',
      textStart: '## The Festival of Shared Stor',
      reasoningStart: '',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [18, 0, 779, 0],
    },
    'alibaba-text.json': {
      model: 'alibaba:qwen3-max',
      textStart: '## The Festival of Forgotten Things',
      reasoningStart: '',
      toolCalls: [],
      finish: ['completed', 'stop'],
      usage: [18, 0, 1064, 0],
    },
    'alibaba-tool-call.chunks.txt': {
      model: 'alibaba:qwen3-max',
      textStart: '',
      reasoningStart: '',
      toolCalls: weatherSF,
      finish: ['tool-call', 'tool_calls'],
      usage: [295, 0, 22, 0],
    },
    'alibaba-tool-call.json': {
      model: 'alibaba:qwen3-max',
      textStart: '',
      reasoningStart: '',
      toolCalls: weatherSF,
      finish: ['tool-call', 'tool_calls'],
      usage: [295, 0, 22, 0],
    },
  },
};

const hostOf: Record<string, PresetName> = {
  groq: 'groq',
  'deepseek/chat': 'deepseek',
  xai: 'xai',
  mistral: 'mistral',
  moonshotai: 'moonshot',
  perplexity: 'perplexity',
  alibaba: 'alibaba',
};

type WireMessage = { content?: unknown; reasoning_content?: string; reasoning?: string };

/** Independent oracle: the text and reasoning a recording holds, read straight off the wire JSON. */
function recordedContent(path: string): { text: string; reasoning: string } {
  const messages: WireMessage[] = path.endsWith('.json')
    ? [JSON.parse(readRecorded(path)).choices[0].message]
    : readRecorded(path)
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line).choices?.[0]?.delta ?? {});
  let text = '';
  let reasoning = '';
  for (const message of messages) {
    reasoning += message.reasoning_content ?? message.reasoning ?? '';
    if (typeof message.content === 'string') text += message.content;
    if (!Array.isArray(message.content)) continue;
    for (const item of message.content as Array<{
      type: string;
      text?: string;
      thinking?: Array<{ text: string }>;
    }>) {
      if (item.type === 'text') text += item.text ?? '';
      if (item.type === 'thinking') reasoning += (item.thinking ?? []).map((inner) => inner.text).join('');
    }
  }
  return { text, reasoning };
}

for (const [folder, files] of Object.entries(expectations)) {
  const host = hostOf[folder] as PresetName;
  describe(`recorded ${folder} responses through the ${host} preset`, () => {
    const recorded = listRecorded(folder);

    it('has an expectation for every file in the folder', () => {
      expect(recorded.map((file) => basename(file)).sort()).toEqual(Object.keys(files).sort());
    });

    for (const [name, expected] of Object.entries(files)) {
      it(`${name}: text, reasoning, tool calls, finish reason and usage`, async () => {
        const file = recorded.find((path) => basename(path) === name) as string;
        const adapter = createOpenAICompatible(presets[host], {
          apiKey: 'test-key',
          baseURL: `${emulator.url}/v1`,
          maxRetries: 0,
        });
        const { response, error } = await replayRecorded(emulator, adapter, file);
        expect(error).toBeUndefined();
        const oracle = recordedContent(file);
        expect(textOf(response)).toBe(oracle.text);
        expect(textOf(response).startsWith(expected.textStart)).toBe(true);
        expect(reasoningOf(response)).toBe(oracle.reasoning);
        expect(reasoningOf(response).startsWith(expected.reasoningStart)).toBe(true);
        expect(toolCallsOf(response)).toEqual(expected.toolCalls);
        expect(response?.model).toBe(expected.model);
        expect([response?.finishReason, response?.rawFinishReason]).toEqual(expected.finish);
        const [input, cacheRead, output, reasoning] = expected.usage;
        // With the tier the recording names (Groq's `service_tier: "on_demand"`), where it names one.
        expect(response?.usage).toEqual(
          withRecordedTier({ input, cacheRead, cacheWrite: 0, output, reasoning }, file),
        );
        for (const part of response?.content ?? []) {
          if (part.type === 'reasoning' || part.type === 'tool-call') expect(part.provider).toBe(host);
          if (part.type === 'tool-call') expect(part.id).toMatch(/^tu_/);
        }
        const citations = response?.metadata?.[`${host}.citations`];
        if (expected.citations === undefined) expect(citations).toBeUndefined();
        else expect(citations).toHaveLength(expected.citations);
      });
    }
  });
}
