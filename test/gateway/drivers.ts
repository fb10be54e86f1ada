/**
 * One driver per inbound protocol, each using the official SDK unmodified: a call in the client's
 * own shapes, its history kept in the client's own format, and the outcome normalized so one table
 * of scenarios checks every protocol the same way.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { Content, GoogleGenAI, Part } from '@google/genai';
import type OpenAI from 'openai';
import type { createClients } from './harness.ts';

/** What a call produced, in protocol-neutral terms. */
export interface Outcome {
  text: string;
  reasoning: string;
  toolCalls: Array<{ id: string; name: string; input: unknown }>;
  finish: 'stop' | 'tool' | 'length' | 'other';
  usage: { input: number; output: number };
}

/** Options of one call. */
export interface CallSpec {
  model: string;
  stream: boolean;
  tools?: boolean;
  schema?: Record<string, unknown>;
  reasoning?: boolean;
  signal?: AbortSignal;
}

/** One inbound protocol's client. */
export interface Driver {
  name: 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini';
  /** Starts a history with one user message. */
  start(prompt: string): unknown[];
  /** Calls the gateway; appends the assistant turn to `history`. */
  call(history: unknown[], spec: CallSpec): Promise<Outcome>;
  /** Appends tool results answering `calls`. */
  answer(
    history: unknown[],
    calls: Outcome['toolCalls'],
    output: (call: Outcome['toolCalls'][number]) => string,
  ): void;
  /** Reads the first chunk of a stream, then aborts it. */
  abortAfterFirstChunk(history: unknown[], spec: CallSpec): Promise<void>;
}

const weatherSchema = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
};

type Clients = ReturnType<typeof createClients>;

function empty(): Outcome {
  return { text: '', reasoning: '', toolCalls: [], finish: 'other', usage: { input: 0, output: 0 } };
}

function chatDriver(client: OpenAI): Driver {
  const params = (history: unknown[], spec: CallSpec) => ({
    model: spec.model,
    messages: history as OpenAI.Chat.ChatCompletionMessageParam[],
    ...(spec.tools === true
      ? {
          tools: [
            { type: 'function' as const, function: { name: 'get_weather', parameters: weatherSchema } },
          ],
        }
      : {}),
    ...(spec.schema === undefined
      ? {}
      : {
          response_format: {
            type: 'json_schema' as const,
            json_schema: { name: 'answer', schema: spec.schema, strict: true },
          },
        }),
    ...(spec.reasoning === true ? { reasoning_effort: 'low' as const } : {}),
  });
  const finishOf = (reason: string | null | undefined): Outcome['finish'] =>
    reason === 'stop' ? 'stop' : reason === 'tool_calls' ? 'tool' : reason === 'length' ? 'length' : 'other';
  return {
    name: 'openai-chat',
    start: (prompt) => [{ role: 'user', content: prompt }],
    async call(history, spec) {
      const outcome = empty();
      if (!spec.stream) {
        const reply = await client.chat.completions.create(params(history, spec), { signal: spec.signal });
        const message = reply.choices[0]!.message;
        outcome.text = message.content ?? '';
        outcome.toolCalls = (message.tool_calls ?? []).map((call) => {
          const fn = (call as { function: { name: string; arguments: string } }).function;
          return { id: call.id, name: fn.name, input: JSON.parse(fn.arguments) as unknown };
        });
        outcome.finish = finishOf(reply.choices[0]!.finish_reason);
        outcome.usage = { input: reply.usage!.prompt_tokens, output: reply.usage!.completion_tokens };
      } else {
        const stream = await client.chat.completions.create(
          { ...params(history, spec), stream: true, stream_options: { include_usage: true } },
          { signal: spec.signal },
        );
        const calls: Array<{ id: string; name: string; arguments: string }> = [];
        for await (const chunk of stream) {
          if (chunk.usage)
            outcome.usage = { input: chunk.usage.prompt_tokens, output: chunk.usage.completion_tokens };
          const choice = chunk.choices[0];
          if (choice === undefined) continue;
          outcome.text += choice.delta.content ?? '';
          for (const call of choice.delta.tool_calls ?? []) {
            calls[call.index] ??= { id: '', name: '', arguments: '' };
            const entry = calls[call.index]!;
            if (call.id) entry.id = call.id;
            if (call.function?.name) entry.name = call.function.name;
            entry.arguments += call.function?.arguments ?? '';
          }
          if (choice.finish_reason) outcome.finish = finishOf(choice.finish_reason);
        }
        outcome.toolCalls = calls.map((call) => ({
          id: call.id,
          name: call.name,
          input: JSON.parse(call.arguments) as unknown,
        }));
      }
      history.push({
        role: 'assistant',
        content: outcome.text === '' ? null : outcome.text,
        ...(outcome.toolCalls.length > 0
          ? {
              tool_calls: outcome.toolCalls.map((call) => ({
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: JSON.stringify(call.input) },
              })),
            }
          : {}),
      });
      return outcome;
    },
    answer(history, calls, output) {
      for (const call of calls) history.push({ role: 'tool', tool_call_id: call.id, content: output(call) });
    },
    async abortAfterFirstChunk(history, spec) {
      const controller = new AbortController();
      const stream = await client.chat.completions.create(
        { ...params(history, spec), stream: true },
        { signal: controller.signal },
      );
      for await (const _chunk of stream) {
        controller.abort();
        break;
      }
    },
  };
}

/** Built-in call items a Responses client runs: the tool each calls and the field that is its input. */
const clientCallTypes: Record<string, [name: string, payload: string]> = {
  apply_patch_call: ['apply_patch', 'operation'],
  local_shell_call: ['local_shell', 'action'],
  shell_call: ['shell', 'action'],
  tool_search_call: ['tool_search', 'arguments'],
};

function clientCall(item: Record<string, unknown>): { id: string; name: string; input: unknown } | undefined {
  const kind = clientCallTypes[String(item.type)];
  if (kind === undefined || typeof item.call_id !== 'string') return undefined;
  if (item.type === 'tool_search_call' && item.execution !== 'client') return undefined;
  const environment = item.environment as { type?: string } | null | undefined;
  if (
    item.type === 'shell_call' &&
    environment !== undefined &&
    environment !== null &&
    environment.type !== 'local'
  )
    return undefined;
  return { id: item.call_id, name: kind[0], input: { [kind[1]]: item[kind[1]] } };
}

function responsesDriver(client: OpenAI): Driver {
  const params = (history: unknown[], spec: CallSpec) => ({
    model: spec.model,
    input: history as OpenAI.Responses.ResponseInputItem[],
    store: false,
    include: ['reasoning.encrypted_content' as const],
    ...(spec.tools === true
      ? {
          tools: [
            { type: 'function' as const, name: 'get_weather', parameters: weatherSchema, strict: false },
          ],
        }
      : {}),
    ...(spec.schema === undefined
      ? {}
      : {
          text: {
            format: { type: 'json_schema' as const, name: 'answer', schema: spec.schema, strict: true },
          },
        }),
    ...(spec.reasoning === true ? { reasoning: { effort: 'low' as const } } : {}),
  });
  return {
    name: 'openai-responses',
    start: (prompt) => [{ role: 'user', content: prompt }],
    async call(history, spec) {
      const response = spec.stream
        ? await client.responses.stream(params(history, spec), { signal: spec.signal }).finalResponse()
        : await client.responses.create(params(history, spec), { signal: spec.signal });
      // A stream that ends in `response.failed` is not thrown by the SDK: its user reads the status.
      if (response.status === 'failed') throw new Error(response.error?.message ?? 'response.failed');
      const outcome = empty();
      for (const item of response.output) {
        if (item.type === 'message')
          for (const part of item.content) outcome.text += part.type === 'output_text' ? part.text : '';
        else if (item.type === 'function_call')
          outcome.toolCalls.push({
            id: item.call_id,
            name: item.name,
            input: JSON.parse(item.arguments) as unknown,
          });
        else if (item.type === 'reasoning')
          outcome.reasoning += item.summary.map((entry) => entry.text).join('');
        else {
          // A built-in call the client runs (apply_patch, a shell, …): a call of that tool.
          const call = clientCall(item as unknown as Record<string, unknown>);
          if (call !== undefined) outcome.toolCalls.push(call);
        }
        history.push(item);
      }
      outcome.finish =
        response.status === 'incomplete'
          ? 'length'
          : outcome.toolCalls.length > 0
            ? 'tool'
            : response.status === 'completed'
              ? 'stop'
              : 'other';
      outcome.usage = { input: response.usage!.input_tokens, output: response.usage!.output_tokens };
      return outcome;
    },
    answer(history, calls, output) {
      for (const call of calls)
        history.push({ type: 'function_call_output', call_id: call.id, output: output(call) });
    },
    async abortAfterFirstChunk(history, spec) {
      const controller = new AbortController();
      const stream = await client.responses.create(
        { ...params(history, spec), stream: true },
        { signal: controller.signal },
      );
      for await (const _event of stream) {
        controller.abort();
        break;
      }
    },
  };
}

function anthropicDriver(client: Anthropic): Driver {
  const params = (history: unknown[], spec: CallSpec) =>
    ({
      model: spec.model,
      max_tokens: 4096,
      messages: history as Anthropic.MessageParam[],
      ...(spec.tools === true ? { tools: [{ name: 'get_weather', input_schema: weatherSchema }] } : {}),
      ...(spec.schema === undefined ? {} : { output_format: { type: 'json_schema', schema: spec.schema } }),
      ...(spec.reasoning === true ? { thinking: { type: 'enabled', budget_tokens: 1024 } } : {}),
    }) as Anthropic.MessageCreateParamsNonStreaming;
  return {
    name: 'anthropic-messages',
    start: (prompt) => [{ role: 'user', content: prompt }],
    async call(history, spec) {
      const message = spec.stream
        ? await client.messages.stream(params(history, spec), { signal: spec.signal }).finalMessage()
        : await client.messages.create(params(history, spec), { signal: spec.signal });
      const outcome = empty();
      for (const block of message.content) {
        if (block.type === 'text') outcome.text += block.text;
        else if (block.type === 'thinking') outcome.reasoning += block.thinking;
        else if (block.type === 'tool_use')
          outcome.toolCalls.push({ id: block.id, name: block.name, input: block.input });
      }
      const stops: Record<string, Outcome['finish']> = {
        end_turn: 'stop',
        tool_use: 'tool',
        max_tokens: 'length',
      };
      outcome.finish = stops[message.stop_reason ?? ''] ?? 'other';
      outcome.usage = {
        input:
          message.usage.input_tokens +
          (message.usage.cache_read_input_tokens ?? 0) +
          (message.usage.cache_creation_input_tokens ?? 0),
        output: message.usage.output_tokens,
      };
      history.push({ role: 'assistant', content: message.content });
      return outcome;
    },
    answer(history, calls, output) {
      history.push({
        role: 'user',
        content: calls.map((call) => ({ type: 'tool_result', tool_use_id: call.id, content: output(call) })),
      });
    },
    async abortAfterFirstChunk(history, spec) {
      const controller = new AbortController();
      const stream = await client.messages.create(
        { ...params(history, spec), stream: true },
        { signal: controller.signal },
      );
      for await (const _event of stream) {
        controller.abort();
        break;
      }
    },
  };
}

function geminiDriver(client: GoogleGenAI): Driver {
  const request = (history: unknown[], spec: CallSpec) => ({
    model: spec.model,
    contents: history as Content[],
    config: {
      abortSignal: spec.signal,
      ...(spec.tools === true
        ? {
            tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: weatherSchema }] }],
          }
        : {}),
      ...(spec.schema === undefined
        ? {}
        : { responseMimeType: 'application/json', responseJsonSchema: spec.schema }),
      ...(spec.reasoning === true ? { thinkingConfig: { includeThoughts: true, thinkingBudget: 512 } } : {}),
    },
  });
  return {
    name: 'gemini',
    start: (prompt) => [{ role: 'user', parts: [{ text: prompt }] }],
    async call(history, spec) {
      const parts: Part[] = [];
      const outcome = empty();
      let finishReason: string | undefined;
      const take = (chunk: Awaited<ReturnType<GoogleGenAI['models']['generateContent']>>) => {
        const candidate = chunk.candidates?.[0];
        parts.push(...(candidate?.content?.parts ?? []));
        if (candidate?.finishReason) finishReason = candidate.finishReason;
        const usage = chunk.usageMetadata;
        if (usage)
          outcome.usage = {
            input: usage.promptTokenCount ?? 0,
            output: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
          };
      };
      if (spec.stream)
        for await (const chunk of await client.models.generateContentStream(request(history, spec)))
          take(chunk);
      else take(await client.models.generateContent(request(history, spec)));
      for (const part of parts) {
        if (part.thought === true) outcome.reasoning += part.text ?? '';
        else if (part.text !== undefined) outcome.text += part.text;
        else if (part.functionCall)
          outcome.toolCalls.push({
            id: part.functionCall.id ?? '',
            name: part.functionCall.name ?? '',
            input: part.functionCall.args,
          });
      }
      outcome.finish =
        finishReason === 'STOP'
          ? outcome.toolCalls.length > 0
            ? 'tool'
            : 'stop'
          : finishReason === 'MAX_TOKENS'
            ? 'length'
            : 'other';
      history.push({
        role: 'model',
        parts: parts.filter((part) => !(part.text === '' && part.thoughtSignature === undefined)),
      });
      return outcome;
    },
    answer(history, calls, output) {
      history.push({
        role: 'user',
        parts: calls.map((call) => ({
          functionResponse: { id: call.id, name: call.name, response: { output: output(call) } },
        })),
      });
    },
    async abortAfterFirstChunk(history, spec) {
      const controller = new AbortController();
      const stream = await client.models.generateContentStream(
        request(history, { ...spec, signal: controller.signal }),
      );
      for await (const _chunk of stream) {
        controller.abort();
        break;
      }
    },
  };
}

/** Every inbound protocol's driver over the given clients. */
export function createDrivers(clients: Clients): Driver[] {
  return [
    chatDriver(clients.openai),
    responsesDriver(clients.openai),
    anthropicDriver(clients.anthropic),
    geminiDriver(clients.google),
  ];
}
