/**
 * What Converse takes depends on the model family behind it (found by a differential run of
 * request bodies against the Vercel AI SDK, checked against AWS's API reference):
 * - Claude keeps the Messages API's sampling rules (temperature or top_p on 4.5+; under thinking no
 *   temperature other than 1 and no top_k): Bedrock answers a ValidationException otherwise.
 * - A toolResult's `status` and its image and document blocks are for Amazon Nova and Anthropic
 *   Claude only (ToolResultBlock, ToolResultContentBlock); other families get the error in the text.
 */
import { describe, expect, it } from 'vitest';
import { toolCallId } from '../../core/ids.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { Item } from '../../core/transcript.ts';
import { capabilitiesFor } from './capabilities.ts';
import { notToBeCalled } from './no-tool-calls.ts';
import { buildRequest } from './request.ts';
import { createTestContext } from './test-support.ts';
import { checkConverseRequest } from '../../testing/emulator/rules/bedrock.ts';

const claude = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const llama = 'meta.llama3-3-70b-instruct-v1:0';
const png =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const call = toolCallId('tu_01JCHART0000000000000000000');

function build(model: string, overrides: Partial<CanonicalRequest> = {}, transcript?: Item[]) {
  const context = createTestContext('bedrock', model, capabilitiesFor(model));
  const canonical: CanonicalRequest = {
    model: `bedrock:${model}`,
    transcript: transcript ?? [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
    maxOutputTokens: 4096,
    ...overrides,
  };
  const body = buildRequest(canonical, context).body as Record<string, Record<string, unknown>>;
  return {
    body,
    warnings: context.logger.entries.map((entry) =>
      String(entry.fields.option ?? entry.fields.reason ?? entry.message),
    ),
  };
}

const chartResult = (isError: boolean): Item[] => [
  { kind: 'user', parts: [{ type: 'text', text: 'Draw it.' }] },
  { kind: 'assistant', parts: [{ type: 'tool-call', id: call, name: 'chart', input: {} }] },
  {
    kind: 'tool',
    parts: [
      {
        type: 'tool-result',
        callId: call,
        isError,
        output: {
          type: 'parts',
          parts: [
            { type: 'text', text: 'the chart' },
            { type: 'media', modality: 'image', mimeType: 'image/png', data: { type: 'base64', data: png } },
          ],
        },
      },
    ],
  },
];

const toolResultOf = (body: Record<string, unknown>) =>
  (body.messages as Array<{ content: Array<{ toolResult?: Record<string, unknown> }> }>)
    .flatMap((message) => message.content)
    .find((block) => block.toolResult !== undefined)!.toolResult!;

describe('Converse sampling by family', () => {
  it('Claude 4.5: temperature or top_p, not both (top_p dropped with a WARN)', () => {
    const { body, warnings } = build(claude, { temperature: 0.3, topP: 0.9 });
    expect(body.inferenceConfig).toEqual({ maxTokens: 4096, temperature: 0.3 });
    expect(warnings).toEqual(['top_p']);
  });

  it('Claude under thinking: no temperature other than 1 and no top_k (each dropped with a WARN)', () => {
    const { body, warnings } = build(claude, { reasoning: { effort: 'low' }, temperature: 0.5, topK: 20 });
    expect(body.inferenceConfig).toEqual({ maxTokens: 4096 });
    expect(body.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(warnings).toEqual(['temperature', 'top_k']);
  });

  it('Claude under thinking with a forced tool choice is refused before the wire, naming bedrock', () => {
    expect(() => build(claude, { reasoning: { effort: 'low' }, toolChoice: 'required' })).toThrow(
      expect.objectContaining({ errorClass: 'invalid_request', provider: 'bedrock' }),
    );
    expect(() => build(claude, { reasoning: { effort: 'low' }, toolChoice: 'required' })).toThrow(
      /^bedrock: /,
    );
  });

  it('Claude with an effort and no room for the minimum budget: no thinking, with a WARN; an explicit budget is refused', () => {
    const { body, warnings } = build(claude, { reasoning: { effort: 'low' }, maxOutputTokens: 300 });
    expect(body).not.toHaveProperty('additionalModelRequestFields');
    expect(body.inferenceConfig).toEqual({ maxTokens: 300 });
    expect(warnings).toEqual([
      'maxOutputTokens 300 leaves no room for extended thinking (budget_tokens must be at least 1024 and below maxTokens)',
    ]);
    expect(() => build(claude, { reasoning: { budgetTokens: 1024 }, maxOutputTokens: 300 })).toThrow(
      expect.objectContaining({ providerCode: 'thinking_needs_room', provider: 'bedrock' }),
    );
  });

  it("the bodies pass the emulator's Converse rules (Bedrock's ValidationExceptions for Claude)", () => {
    const path = `/model/${encodeURIComponent(claude)}/converse`;
    for (const overrides of [
      { temperature: 0.3, topP: 0.9 },
      { reasoning: { effort: 'low' as const }, temperature: 0.5, topK: 20 },
    ]) {
      const { body } = build(claude, overrides);
      const checked = checkConverseRequest({
        method: 'POST',
        path,
        query: {},
        headers: { authorization: 'Bearer k' },
        body,
        protocol: 'bedrock-converse',
      });
      expect(checked).toBeUndefined();
    }
  });

  it('Claude is sent no empty or whitespace-only stop sequence (a ValidationException); another family all but the empty', () => {
    const stopSequences = ['\n', '', 'END'];
    const converse = (body: unknown) =>
      checkConverseRequest({
        method: 'POST',
        path: `/model/${encodeURIComponent(claude)}/converse`,
        query: {},
        headers: { authorization: 'Bearer k' },
        body,
        protocol: 'bedrock-converse',
      });
    // The whitespace-only one is cut at by Switchyard (`stop-sequences.ts`); the empty one stops at nothing.
    const { body } = build(claude, { stopSequences });
    expect(body.inferenceConfig).toEqual({ maxTokens: 4096, stopSequences: ['END'] });
    expect(converse(body)).toBeUndefined();
    expect(converse({ ...body, inferenceConfig: { maxTokens: 4096, stopSequences } })).toBeDefined();
    expect(build(llama, { stopSequences }).body.inferenceConfig).toEqual({
      maxTokens: 4096,
      stopSequences: ['\n', 'END'],
    });
  });

  it('another family gets what was asked: temperature and topP, top_k in the additional fields', () => {
    const { body, warnings } = build(llama, { temperature: 0.3, topP: 0.9, topK: 20 });
    expect(body.inferenceConfig).toEqual({ maxTokens: 4096, temperature: 0.3, topP: 0.9 });
    expect(body.additionalModelRequestFields).toEqual({ top_k: 20 });
    expect(warnings).toEqual([]);
  });
});

describe('Converse tool results by family', () => {
  it('Claude: the image in a tool result is sent, and an error result has status error', () => {
    const result = toolResultOf(build(claude, {}, chartResult(true)).body);
    expect(result.status).toBe('error');
    expect(result.content).toEqual([
      { text: 'the chart' },
      { image: { format: 'png', source: { bytes: png } } },
    ]);
  });

  it('another family: no status (the error said in the text), the image dropped with a WARN', () => {
    const { body, warnings } = build(llama, {}, chartResult(true));
    const result = toolResultOf(body);
    expect(result.status).toBeUndefined();
    expect(result.content).toEqual([{ text: 'Error:' }, { text: 'the chart' }]);
    expect(warnings.join(' ')).toMatch(/toolResult/);
  });
});

describe('prompt caching follows AWS’s supported-models table', () => {
  const cached = (model: string) =>
    build(model, { cache: {}, tools: [{ name: 'chart', inputSchema: { type: 'object' } }] }, [
      { kind: 'system', parts: [{ type: 'text', text: 'Be terse.' }] },
      { kind: 'user', parts: [{ type: 'text', text: 'Hi' }] },
    ]).body;
  const hasCachePoint = (blocks: unknown) => JSON.stringify(blocks).includes('cachePoint');

  it('Claude: cache points after the system (which caches the tools before it) and in the last user message', () => {
    const body = cached(claude);
    expect([body.system, body.toolConfig, body.messages].map(hasCachePoint)).toEqual([true, false, true]);
  });

  it('Amazon Nova: in the system and the messages only, none after the tools', () => {
    const body = cached('us.amazon.nova-pro-v1:0');
    expect([body.system, body.toolConfig, body.messages].map(hasCachePoint)).toEqual([true, false, true]);
  });

  it.each([
    'anthropic.claude-3-haiku-20240307-v1:0',
    'anthropic.claude-3-sonnet-20240229-v1:0',
    'anthropic.claude-3-opus-20240229-v1:0',
    'us.anthropic.claude-3-5-sonnet-20240620-v1:0',
    'anthropic.claude-3-5-sonnet-20241022-v2:0',
  ])('%s: no prompt caching (not in the table)', (model) => {
    expect(capabilitiesFor(model).promptCaching).toBe(false);
  });

  it.each([
    'us.anthropic.claude-3-7-sonnet-20250219-v1:0',
    'anthropic.claude-3-5-haiku-20241022-v1:0',
    'anthropic.claude-sonnet-4-5-20250929-v1:0',
    'amazon.nova-micro-v1:0',
  ])('%s: prompt caching', (model) => {
    expect(capabilitiesFor(model).promptCaching).toBe(true);
  });
});

describe('reasoning off (effort none)', () => {
  it('sends Claude and Nova no reasoning field; an OpenAI open-weight model its least effort, with a WARN', () => {
    for (const model of [claude, 'us.amazon.nova-2-lite-v1:0']) {
      const { body, warnings } = build(model, { reasoning: { effort: 'none' } });
      expect(body).not.toHaveProperty('additionalModelRequestFields');
      expect(warnings).toEqual([]);
    }
    const { body, warnings } = build('openai.gpt-oss-120b-1:0', { reasoning: { effort: 'none' } });
    expect(body.additionalModelRequestFields).toEqual({ reasoning_effort: 'low' });
    expect(warnings).toEqual(['changed the reasoning effort to a level the model takes']);
  });
});

describe('the highest effort (xhigh)', () => {
  it('gives Claude a budget of 32,768 (high 24,576), kept below max_tokens', () => {
    const thinking = (effort: 'high' | 'xhigh', maxOutputTokens: number) =>
      build(claude, { reasoning: { effort }, maxOutputTokens }).body.additionalModelRequestFields;
    expect(thinking('high', 64_000)).toEqual({ thinking: { type: 'enabled', budget_tokens: 24_576 } });
    expect(thinking('xhigh', 64_000)).toEqual({ thinking: { type: 'enabled', budget_tokens: 32_768 } });
    expect(thinking('xhigh', 4096)).toEqual({ thinking: { type: 'enabled', budget_tokens: 4095 } });
  });

  it('sends Nova and OpenAI open-weight models their highest level, high, with a WARN', () => {
    const nova = build('us.amazon.nova-2-lite-v1:0', { reasoning: { effort: 'xhigh' } });
    expect(nova.body.additionalModelRequestFields).toEqual({
      reasoningConfig: { type: 'enabled', maxReasoningEffort: 'high' },
    });
    expect(nova.warnings).toEqual(['changed the reasoning effort to a level the model takes']);
    const oss = build('openai.gpt-oss-120b-1:0', { reasoning: { effort: 'xhigh' } });
    expect(oss.body.additionalModelRequestFields).toEqual({ reasoning_effort: 'high' });
    expect(oss.warnings).toEqual(['changed the reasoning effort to a level the model takes']);
  });
});

describe('an effort without thinking (thinking: false)', () => {
  it('is dropped with a WARN for Claude (Converse has no output_config), never turned into thinking', () => {
    const { body, warnings } = build(claude, { reasoning: { effort: 'low', thinking: false } });
    expect(body.additionalModelRequestFields?.thinking).toBeUndefined();
    expect(warnings).toEqual(['dropped the effort: Claude on Bedrock takes no output_config.effort']);
  });
});

it('an empty or blank user turn is refused naming it, never left out (a trailing one would make a prefill)', () => {
  const turns: Item[] = [
    { kind: 'user', parts: [{ type: 'text', text: 'Tell me a joke' }] },
    { kind: 'assistant', parts: [{ type: 'text', text: 'Why?' }] },
    { kind: 'user', parts: [{ type: 'text', text: ' ' }] },
  ];
  expect(() => build(claude, {}, turns)).toThrow(
    /bedrock: the user turn \(transcript\[2\]\.parts\[0\]\) is empty/,
  );
});

it('an empty user turn after a tool result is part of that user message, sent (it stands alone nowhere)', () => {
  const turns: Item[] = [
    { kind: 'user', parts: [{ type: 'text', text: 'weather?' }] },
    { kind: 'assistant', parts: [{ type: 'tool-call', id: call, name: 'get', input: {} }] },
    {
      kind: 'tool',
      parts: [
        {
          type: 'tool-result',
          callId: call,
          name: 'get',
          output: { type: 'text', text: 'sunny' },
          isError: false,
        },
      ],
    },
    { kind: 'user', parts: [{ type: 'text', text: '' }] },
  ];
  const messages = build(claude, {}, turns).body.messages as unknown as Array<{
    role: string;
    content: Array<Record<string, unknown>>;
  }>;
  expect(messages.at(-1)?.role).toBe('user');
  expect(messages.at(-1)?.content.map((block) => Object.keys(block))).toEqual([['toolResult']]);
});

describe('document names', () => {
  const pdf = (filename?: string): Item['parts'][number] => ({
    type: 'file',
    mimeType: 'application/pdf',
    data: { type: 'base64', data: 'JVBERi0=' },
    ...(filename === undefined ? {} : { filename }),
  });
  const namesIn = (value: unknown): string[] =>
    JSON.stringify(value)
      .match(/"document":\{[^}]*?"name":"([^"]*)"/g)!
      .map((match) => /"name":"([^"]*)"/.exec(match)![1]!);

  it('are unique across the request (Converse refuses two of one name anywhere): a file sent twice, untitled documents in a turn and in tool results', () => {
    const transcript: Item[] = [
      {
        kind: 'user',
        parts: [{ type: 'text', text: 'Read these.' }, pdf('report.pdf'), pdf(), pdf('report.docx')],
      },
      { kind: 'assistant', parts: [{ type: 'tool-call', id: call, name: 'fetch', input: {} }] },
      {
        kind: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: call,
            output: { type: 'parts', parts: [pdf(), pdf()] },
            isError: false,
          },
        ],
      },
      { kind: 'user', parts: [{ type: 'text', text: 'Again.' }, pdf('report.pdf')] },
    ];
    const { body } = build(claude, {}, transcript);
    const names = namesIn(body.messages);
    expect(names).toEqual(['report', 'document-1', 'report (2)', 'document-2', 'document-3', 'report (3)']);
    expect(new Set(names).size).toBe(names.length);
    // The same history sent again gives every document the same name.
    expect(namesIn(build(claude, {}, transcript).body.messages)).toEqual(names);
    // The emulator refuses duplicates as Converse does, and takes these.
    const request = (messages: unknown) => ({
      method: 'POST',
      path: `/model/${claude}/converse`,
      query: {},
      headers: { authorization: 'Bearer k' },
      body: { ...body, messages },
      protocol: 'bedrock-converse' as const,
    });
    expect(checkConverseRequest(request(body.messages))).toBeUndefined();
    const twice = JSON.parse(JSON.stringify(body.messages).replace('"name":"report (2)"', '"name":"report"'));
    expect(JSON.stringify(checkConverseRequest(request(twice)))).toContain('duplicate document names');
  });

  it('lose only a document extension: a title with dots keeps its tail (an Anthropic client’s title)', () => {
    const titles = [
      'Release notes v2.0 (final)',
      'Release notes v2.1 (draft)',
      'Smith et al. 2024, Annual Report',
      'notes.MD',
      'table.xlsx',
      'archive.tar',
    ];
    const transcript: Item[] = [
      { kind: 'user', parts: [{ type: 'text', text: 'Compare.' }, ...titles.map((title) => pdf(title))] },
    ];
    expect(namesIn(build(claude, {}, transcript).body.messages)).toEqual([
      'Release notes v2 0 (final)',
      'Release notes v2 1 (draft)',
      'Smith et al 2024 Annual Report',
      'notes',
      'table',
      'archive tar',
    ]);
  });
});

describe("tool choice 'none'", () => {
  const weather = { name: 'weather', description: 'Weather', inputSchema: { type: 'object' as const } };
  it('with tool blocks in the history declares the tools they used (Converse requires them), as not to be called, and says so', () => {
    const { body, warnings } = build(claude, { tools: [weather], toolChoice: 'none' }, chartResult(false));
    expect(body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: { name: 'chart', description: notToBeCalled, inputSchema: { json: { type: 'object' } } },
        },
      ],
    });
    expect(warnings).toContainEqual(expect.stringContaining("Converse has no tool choice 'none'"));
  });

  it('without tool blocks sends no tools at all, and says nothing', () => {
    const { body, warnings } = build(claude, { tools: [weather], toolChoice: 'none' });
    expect(body.toolConfig).toBeUndefined();
    expect(warnings.some((warning) => warning.includes("tool choice 'none'"))).toBe(false);
  });
});

describe('strict tools on Converse', () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
  const tools = [{ name: 'f', inputSchema: schema, strict: true }];

  it('Claude 4.5: toolSpec.strict, the schema closed; another family: as written, with a WARN', () => {
    const sonnet = build(claude, { tools });
    expect(sonnet.body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'f',
            inputSchema: { json: { ...schema, additionalProperties: false } },
            strict: true,
          },
        },
      ],
    });
    expect(sonnet.warnings).toEqual([]);
    const other = build(llama, { tools });
    expect(other.body.toolConfig).toEqual({
      tools: [{ toolSpec: { name: 'f', inputSchema: { json: schema } } }],
    });
    expect(other.warnings).toEqual(['the model has no strict tool use']);
  });
});
