import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCallId } from '../../core/ids.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { collectStream } from '../openai-chat/test-support.ts';
import { createOpenAICompatible, type PresetName, presetNames, presets } from './index.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

/** A reasoning-capable model of each host, so every host's reasoning control shows. */
const models: Record<PresetName, string> = {
  openrouter: 'anthropic/claude-sonnet-4.5',
  groq: 'openai/gpt-oss-120b',
  deepseek: 'deepseek-reasoner',
  xai: 'grok-3-mini',
  mistral: 'magistral-medium-latest',
  together: 'openai/gpt-oss-120b',
  fireworks: 'accounts/fireworks/models/qwen3-235b-a22b',
  perplexity: 'sonar-reasoning-pro',
  moonshot: 'kimi-k2-thinking',
  alibaba: 'qwen3-max',
  cerebras: 'gpt-oss-120b',
  ollama: 'qwen3:8b',
  lmstudio: 'qwen/qwen3-8b',
  vllm: 'Qwen/Qwen3-8B',
};

const callId = toolCallId('tu_01JGOLDEN000000000000000AA');

/** The same canonical request for every host; parts a host cannot take are left out for it. */
function canonicalRequest(host: PresetName, tools: boolean, reasoning: boolean): CanonicalRequest {
  return {
    model: `${host}:${models[host]}`,
    transcript: [
      { kind: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
      { kind: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] },
      {
        kind: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Use the tool.', provider: host },
          { type: 'tool-call', id: callId, name: 'weather', input: { city: 'Paris' } },
        ],
      },
      {
        kind: 'tool',
        parts: [{ type: 'tool-result', callId, output: { type: 'text', text: '21C' }, isError: false }],
      },
    ],
    ...(tools
      ? {
          tools: [
            { name: 'weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
          ],
          toolChoice: 'auto' as const,
          parallelToolCalls: false,
        }
      : {}),
    maxOutputTokens: 1024,
    temperature: 0.3,
    outputSchema: { name: 'answer', schema: { type: 'object' } },
    ...(reasoning ? { reasoning: { effort: 'low' as const } } : {}),
  };
}

/** One line per top-level field: `field: <compact JSON>`. */
function describeBody(body: Record<string, unknown>): string {
  return Object.entries(body)
    .map(([field, value]) => `  ${field}: ${JSON.stringify(value)}`)
    .join('\n');
}

describe('golden request bodies of every preset', () => {
  it('prints each preset’s streamed body for the same canonical request', async () => {
    const printed: string[] = [];
    for (const host of presetNames) {
      const adapter = createOpenAICompatible(presets[host], {
        apiKey: 'test-key',
        baseURL: `${emulator.url}/v1`,
        strictTools: true,
        logger: { warn() {} },
      });
      const capabilities = adapter.capabilities(models[host]);
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
      const { error } = await collectStream(
        adapter.stream(canonicalRequest(host, capabilities.tools, capabilities.reasoning)),
      );
      expect(error, host).toBeUndefined();
      const request = emulator.requests.at(-1);
      expect(request?.path).toBe('/v1/chat/completions');
      printed.push(
        `${host} (${request?.headers.authorization})\n${describeBody(request?.body as Record<string, unknown>)}`,
      );
    }
    expect(printed.join('\n')).toMatchInlineSnapshot(`
      "openrouter (Bearer test-key)
        model: "anthropic/claude-sonnet-4.5"
        messages: [{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"tu_01JGOLDEN000000000000000AA","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Paris\\"}"}}],"reasoning_details":[{"type":"reasoning.text","text":"Use the tool."}]},{"role":"tool","tool_call_id":"tu_01JGOLDEN000000000000000AA","content":"21C"}]
        tools: [{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":["string","null"]}},"required":["city"],"additionalProperties":false},"strict":true}}]
        tool_choice: "auto"
        parallel_tool_calls: false
        max_tokens: 1024
        temperature: 0.3
        response_format: {"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"},"strict":false}}
        reasoning: {"effort":"low"}
        stream: true
        stream_options: {"include_usage":true}
      groq (Bearer test-key)
        model: "openai/gpt-oss-120b"
        messages: [{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"tu_01JGOLDEN000000000000000AA","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]},{"role":"tool","tool_call_id":"tu_01JGOLDEN000000000000000AA","content":"21C"}]
        tools: [{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]
        tool_choice: "auto"
        parallel_tool_calls: false
        max_completion_tokens: 1024
        temperature: 0.3
        response_format: {"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"}}}
        reasoning_effort: "low"
        stream: true
        stream_options: {"include_usage":true}
      deepseek (Bearer test-key)
        model: "deepseek-reasoner"
        messages: [{"role":"system","content":"Be brief.\\n\\nRespond with a single JSON object that conforms to this JSON Schema:\\n{\\"type\\":\\"object\\"}"},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"tu_01JGOLDEN000000000000000AA","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Paris\\"}"}}],"reasoning_content":"Use the tool."},{"role":"tool","tool_call_id":"tu_01JGOLDEN000000000000000AA","content":"21C"}]
        tools: [{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]
        tool_choice: "auto"
        max_tokens: 1024
        temperature: 0.3
        response_format: {"type":"json_object"}
        stream: true
        stream_options: {"include_usage":true}
      xai (Bearer test-key)
        model: "grok-3-mini"
        messages: [{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"tu_01JGOLDEN000000000000000AA","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]},{"role":"tool","tool_call_id":"tu_01JGOLDEN000000000000000AA","content":"21C"}]
        tools: [{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":["string","null"]}},"required":["city"],"additionalProperties":false},"strict":true}}]
        tool_choice: "auto"
        parallel_tool_calls: false
        max_completion_tokens: 1024
        temperature: 0.3
        response_format: {"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"},"strict":false}}
        reasoning_effort: "low"
        stream: true
        stream_options: {"include_usage":true}
      mistral (Bearer test-key)
        model: "magistral-medium-latest"
        messages: [{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"TRnFY2uU8","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]},{"role":"tool","tool_call_id":"TRnFY2uU8","content":"21C"}]
        tools: [{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":["string","null"]}},"required":["city"],"additionalProperties":false},"strict":true}}]
        tool_choice: "auto"
        parallel_tool_calls: false
        max_tokens: 1024
        temperature: 0.3
        response_format: {"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"},"strict":false}}
        stream: true
      together (Bearer test-key)
        model: "openai/gpt-oss-120b"
        messages: [{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"tu_01JGOLDEN000000000000000AA","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]},{"role":"tool","tool_call_id":"tu_01JGOLDEN000000000000000AA","content":"21C"}]
        tools: [{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]
        tool_choice: "auto"
        parallel_tool_calls: false
        max_tokens: 1024
        temperature: 0.3
        response_format: {"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"}}}
        reasoning_effort: "low"
        stream: true
        stream_options: {"include_usage":true}
      fireworks (Bearer test-key)
        model: "accounts/fireworks/models/qwen3-235b-a22b"
        messages: [{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"tu_01JGOLDEN000000000000000AA","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]},{"role":"tool","tool_call_id":"tu_01JGOLDEN000000000000000AA","content":"21C"}]
        tools: [{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]
        tool_choice: "auto"
        parallel_tool_calls: false
        max_tokens: 1024
        temperature: 0.3
        response_format: {"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"}}}
        reasoning_effort: "low"
        stream: true
        stream_options: {"include_usage":true}
      perplexity (Bearer test-key)
        model: "sonar-reasoning-pro"
        messages: [{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"}]
        max_tokens: 1024
        temperature: 0.3
        response_format: {"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"}}}
        reasoning_effort: "low"
        stream: true
      moonshot (Bearer test-key)
        model: "kimi-k2-thinking"
        messages: [{"role":"system","content":"Be brief.\\n\\nRespond with a single JSON object that conforms to this JSON Schema:\\n{\\"type\\":\\"object\\"}"},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"tu_01JGOLDEN000000000000000AA","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Paris\\"}"}}],"reasoning_content":"Use the tool."},{"role":"tool","tool_call_id":"tu_01JGOLDEN000000000000000AA","content":"21C"}]
        tools: [{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]
        tool_choice: "auto"
        parallel_tool_calls: false
        max_tokens: 1024
        temperature: 0.3
        response_format: {"type":"json_object"}
        stream: true
        stream_options: {"include_usage":true}
      alibaba (Bearer test-key)
        model: "qwen3-max"
        messages: [{"role":"system","content":"Be brief.\\n\\nRespond with a single JSON object that conforms to this JSON Schema:\\n{\\"type\\":\\"object\\"}"},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"tu_01JGOLDEN000000000000000AA","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]},{"role":"tool","tool_call_id":"tu_01JGOLDEN000000000000000AA","content":"21C"}]
        tools: [{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]
        tool_choice: "auto"
        parallel_tool_calls: false
        max_tokens: 1024
        temperature: 0.3
        response_format: {"type":"json_object"}
        enable_thinking: true
        stream: true
        stream_options: {"include_usage":true}
      cerebras (Bearer test-key)
        model: "gpt-oss-120b"
        messages: [{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"tu_01JGOLDEN000000000000000AA","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]},{"role":"tool","tool_call_id":"tu_01JGOLDEN000000000000000AA","content":"21C"}]
        tools: [{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":["string","null"]}},"required":["city"],"additionalProperties":false},"strict":true}}]
        tool_choice: "auto"
        parallel_tool_calls: false
        max_completion_tokens: 1024
        temperature: 0.3
        response_format: {"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"},"strict":false}}
        reasoning_effort: "low"
        stream: true
        stream_options: {"include_usage":true}
      ollama (Bearer test-key)
        model: "qwen3:8b"
        messages: [{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"tu_01JGOLDEN000000000000000AA","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]},{"role":"tool","tool_call_id":"tu_01JGOLDEN000000000000000AA","content":"21C"}]
        tools: [{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]
        tool_choice: "auto"
        parallel_tool_calls: false
        max_tokens: 1024
        temperature: 0.3
        response_format: {"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"}}}
        stream: true
        stream_options: {"include_usage":true}
      lmstudio (Bearer test-key)
        model: "qwen/qwen3-8b"
        messages: [{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"tu_01JGOLDEN000000000000000AA","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]},{"role":"tool","tool_call_id":"tu_01JGOLDEN000000000000000AA","content":"21C"}]
        tools: [{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]
        tool_choice: "auto"
        parallel_tool_calls: false
        max_tokens: 1024
        temperature: 0.3
        response_format: {"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"}}}
        stream: true
        stream_options: {"include_usage":true}
      vllm (Bearer test-key)
        model: "Qwen/Qwen3-8B"
        messages: [{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"tu_01JGOLDEN000000000000000AA","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]},{"role":"tool","tool_call_id":"tu_01JGOLDEN000000000000000AA","content":"21C"}]
        tools: [{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]
        tool_choice: "auto"
        parallel_tool_calls: false
        max_tokens: 1024
        temperature: 0.3
        response_format: {"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"}}}
        stream: true
        stream_options: {"include_usage":true}"
    `);
  });
});
