/**
 * Hosts that serve several model families through one adapter (Vertex: Gemini and Claude; Bedrock:
 * Claude, Nova, …): each family verifies only its own signatures, so parts are tagged with the
 * family (`vertex/anthropic`, `vertex/google`, `bedrock/amazon`) and projection hands them back to
 * that family alone. Recorded responses (test/fixtures/recorded) are replayed by the emulator at
 * Vertex's and Bedrock's endpoints; the request the next family receives is read from what the
 * emulator recorded, never from the adapter's own view.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Adapter, createSession } from '../../src/core/adapter.ts';
import type { StreamEvent } from '../../src/core/events.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';
import type { CanonicalRequest, CanonicalResponse } from '../../src/core/request.ts';
import type { Item, Part, ToolCallPart } from '../../src/core/transcript.ts';
import { type Emulator, type EmulatorScript, startEmulator } from '../../src/testing/emulator/index.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';
import { recordedDir } from '../support/fixtures.ts';
import { createOnEmulator } from '../support/provider-types.ts';

const claudeOnVertex = 'vertex:claude-sonnet-4-5@20250929';
const geminiOnVertex = 'vertex:gemini-3-pro-preview';
const claudeOnBedrock = 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const novaOnBedrock = 'bedrock:us.amazon.nova-2-lite-v1:0';

/** Signatures of the recorded responses replayed below. */
const recorded = {
  /** `anthropic/anthropic-clear-thinking.1.chunks.txt`: Claude's thinking signature. */
  claudeThinking: 'EvQBCkYICxgCKkAxhD4NUKFzudtZ6N',
  /** `google/google-stream-no-args-tool-call.chunks.txt`: Gemini 3's signature on its first call. */
  geminiCall: 'AY89a18a8/Loc2wl5oft+F3qHoU4VPX0L9ljRtKxfjhEuimSIqhzYEJAGT5Sgd8OH2C',
  /** `bedrock/amazon-bedrock-reasoning.json`: Claude's signature through Converse. */
  bedrockClaude: 'EvYBCkgICxABGAIqQA9E9VC377UnbjdfXCw4RwQaaIXsqocZKzI3WwWtXT',
};
const fixture = (path: string) => `${recordedDir}/${path}`;

const tools = ['read_theme', 'read_screen', 'lookup'].map((name) => ({
  name,
  description: `The ${name} tool`,
  inputSchema: { type: 'object', properties: { id: { type: 'string' }, q: { type: 'string' } } },
}));

let emulator: Emulator;
const logger = createMemoryLogger();
let vertex: Adapter;
let bedrock: Adapter;

beforeAll(async () => {
  emulator = await startEmulator();
  const common = { apiKey: 'test-key', logger, maxRetries: 0 };
  vertex = createOnEmulator('vertex', emulator.url, common);
  bedrock = createOnEmulator('bedrock', emulator.url, common);
});
afterAll(async () => {
  await vertex.close();
  await bedrock.close();
  await emulator.close();
});

interface Turn {
  response: CanonicalResponse;
  /** The body the emulator received. */
  body: unknown;
  /** The projection WARNs of this turn. */
  drops: Array<{ blockType: unknown; reason: unknown }>;
  /** Every WARN message of this turn. */
  warnings: string[];
}

/** One call through `adapter` (streamed unless `complete`), the emulator answering with `script`. */
async function runTurn(
  adapter: Adapter,
  model: string,
  transcript: Item[],
  script: EmulatorScript,
  options: { session: ReturnType<typeof createSession>; complete?: boolean; reasoning?: boolean },
): Promise<Turn> {
  emulator.enqueue(script);
  const before = logger.entries.length;
  const request: CanonicalRequest = { model, transcript, tools, maxOutputTokens: 4096 };
  if (options.reasoning === true) request.reasoning = { budgetTokens: 1024 };
  let response: CanonicalResponse;
  if (options.complete === true) response = await adapter.complete(request, { session: options.session });
  else {
    const events: StreamEvent[] = [];
    for await (const event of adapter.stream(request, { session: options.session })) events.push(event);
    assertStreamInvariants(events);
    const finish = events.at(-1);
    if (finish?.type !== 'finish') throw new Error('no finish');
    response = finish.response;
  }
  expect(response.finishReason).not.toBe('error');
  const entries = logger.entries.slice(before);
  return {
    response,
    body: emulator.requests.at(-1)?.body,
    drops: entries
      .filter((entry) => entry.message === 'dropped a part the provider cannot take')
      .map((entry) => ({ blockType: entry.fields.blockType, reason: entry.fields.reason })),
    warnings: entries.map((entry) => entry.message),
  };
}

/** The projection WARN's drop of reasoning another family signed. */
const foreignReasoning = (from: string, to: string) => ({
  blockType: 'reasoning',
  reason: `reasoning produced by ${from} cannot be verified by ${to}`,
});
const user = (text: string): Item => ({ kind: 'user', parts: [{ type: 'text', text }] });
const assistant = (response: CanonicalResponse): Item => ({ kind: 'assistant', parts: response.content });

/** A tool item answering every call of `response`. */
function answers(response: CanonicalResponse): Item {
  const calls = response.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
  return {
    kind: 'tool',
    parts: calls.map((call) => ({
      type: 'tool-result' as const,
      callId: call.id,
      name: call.name,
      output: { type: 'text' as const, text: `result of ${call.name}` },
      isError: false,
    })),
  };
}

/** The `provider` tags of a response's reasoning, tool-call and custom parts. */
function tags(parts: readonly Part[]): Set<string | undefined> {
  return new Set(
    parts.flatMap((part) =>
      part.type === 'reasoning' || part.type === 'tool-call' || part.type === 'custom' ? [part.provider] : [],
    ),
  );
}

/** A scripted Claude answer: signed thinking and a tool call. */
const claudeToolTurn = (signature: string, q: string): EmulatorScript => ({
  type: 'scripted',
  protocol: 'vertex-anthropic',
  content: [
    { type: 'reasoning', text: `Claude thinks about ${q}.`, signature },
    { type: 'tool-call', id: `toolu_vrtx_01${q}`, name: 'lookup', input: { q } },
  ],
});
/** A scripted Gemini answer: a signed thought and a signed call. */
const geminiToolTurn = (signature: string, q: string): EmulatorScript => ({
  type: 'scripted',
  protocol: 'gemini',
  content: [
    { type: 'reasoning', text: `Gemini thinks about ${q}.`, signature: `${signature}-thought` },
    { type: 'tool-call', name: 'lookup', input: { q }, signature },
  ],
});
const text = (
  protocol: 'vertex-anthropic' | 'gemini' | 'bedrock-converse',
  words: string,
): EmulatorScript => ({
  type: 'scripted',
  protocol,
  content: [{ type: 'text', text: words }],
});

describe('Vertex: Claude and Gemini behind one adapter', () => {
  it('Claude → Claude keeps the recorded thinking signature; parts are tagged vertex/anthropic', async () => {
    const session = createSession();
    const transcript: Item[] = [user('What is 925 / 5?')];
    const first = await runTurn(
      vertex,
      claudeOnVertex,
      transcript,
      {
        type: 'replay',
        file: fixture('anthropic/anthropic-clear-thinking.1.chunks.txt'),
        protocol: 'vertex-anthropic',
      },
      { session, reasoning: true },
    );
    expect(first.response.provider).toBe('vertex');
    expect(tags(first.response.content)).toEqual(new Set(['vertex/anthropic']));
    const thinking = first.response.content.find((part) => part.type === 'reasoning');
    expect(thinking?.signature).toContain(recorded.claudeThinking);
    transcript.push(assistant(first.response), user('And divided by 37?'));
    const second = await runTurn(vertex, claudeOnVertex, transcript, text('vertex-anthropic', '5.'), {
      session,
      reasoning: true,
    });
    expect(second.drops).toEqual([]);
    const messages = (second.body as { messages: Array<{ content: Array<Record<string, unknown>> }> })
      .messages;
    expect(messages[1]?.content[0]).toEqual({
      type: 'thinking',
      thinking: thinking?.text,
      signature: thinking?.signature,
    });
  });

  it('Gemini → Gemini keeps the recorded thoughtSignature on its call and its thoughts; parts are tagged vertex/google', async () => {
    const session = createSession();
    const transcript: Item[] = [user('Read the theme, then screens A, B and C.')];
    const first = await runTurn(
      vertex,
      geminiOnVertex,
      transcript,
      {
        type: 'replay',
        file: fixture('google/google-stream-no-args-tool-call.chunks.txt'),
        protocol: 'gemini',
      },
      { session },
    );
    expect(tags(first.response.content)).toEqual(new Set(['vertex/google']));
    const call = first.response.content.find((part): part is ToolCallPart => part.type === 'tool-call');
    expect(call?.signature).toContain(recorded.geminiCall);
    const thought = first.response.content.find((part) => part.type === 'reasoning');
    expect(thought).toBeDefined();
    transcript.push(assistant(first.response), answers(first.response));
    const second = await runTurn(vertex, geminiOnVertex, transcript, text('gemini', 'Done.'), { session });
    expect(second.drops).toEqual([]);
    const contents = (
      second.body as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> }
    ).contents;
    const model = contents.find((content) => content.role === 'model');
    const signed = model?.parts.find((part) => part.functionCall !== undefined);
    expect(signed?.thoughtSignature).toBe(call?.signature);
    expect(model?.parts.some((part) => part.thought === true && part.text === thought?.text)).toBe(true);
  });

  it("Claude → Gemini: Claude's thinking is dropped with the WARN, the Gemini body holds no Claude signature", async () => {
    const session = createSession();
    const transcript: Item[] = [user('What is 925 / 5?')];
    const first = await runTurn(
      vertex,
      claudeOnVertex,
      transcript,
      {
        type: 'replay',
        file: fixture('anthropic/anthropic-clear-thinking.1.chunks.txt'),
        protocol: 'vertex-anthropic',
      },
      { session, reasoning: true },
    );
    transcript.push(assistant(first.response), user('Look up 185.'));
    const call = await runTurn(vertex, claudeOnVertex, transcript, claudeToolTurn('sig-claude-2', 'Q185'), {
      session,
      reasoning: true,
    });
    // The tool loop goes on with Gemini 3: Claude's call is in its current turn, where signatures are enforced.
    transcript.push(assistant(call.response), answers(call.response));
    const gemini = await runTurn(vertex, geminiOnVertex, transcript, text('gemini', '185 it is.'), {
      session,
    });
    const body = JSON.stringify(gemini.body);
    expect(body).not.toContain(recorded.claudeThinking);
    expect(body).not.toContain('sig-claude-2');
    expect(body).not.toContain('Claude thinks');
    expect(body).toContain('skip_thought_signature_validator');
    expect(gemini.drops).toEqual([
      foreignReasoning('vertex/anthropic', 'vertex/google'),
      foreignReasoning('vertex/anthropic', 'vertex/google'),
    ]);
  });

  it("Gemini → Claude: Gemini's thoughts and signatures are dropped with the WARN, the Claude body holds none", async () => {
    const session = createSession();
    const transcript: Item[] = [user('Read the theme, then screens A, B and C.')];
    const first = await runTurn(
      vertex,
      geminiOnVertex,
      transcript,
      {
        type: 'replay',
        file: fixture('google/google-stream-no-args-tool-call.chunks.txt'),
        protocol: 'gemini',
      },
      { session },
    );
    const thoughts = first.response.content.filter((part) => part.type === 'reasoning');
    transcript.push(assistant(first.response), answers(first.response));
    const claude = await runTurn(vertex, claudeOnVertex, transcript, text('vertex-anthropic', 'Read.'), {
      session,
      reasoning: true,
    });
    const body = JSON.stringify(claude.body);
    expect(body).not.toContain(recorded.geminiCall.slice(0, 24));
    expect(body).not.toContain('"thinking","thinking"');
    expect(claude.drops).toEqual(thoughts.map(() => foreignReasoning('vertex/google', 'vertex/anthropic')));
    // The tool turn Gemini opened has no Claude thinking block: thinking is off for this call (no 400).
    expect(claude.warnings).toContain(
      'thinking disabled for this turn: the last tool-use turn has no Anthropic thinking block',
    );
    expect((claude.body as Record<string, unknown>).thinking).toBeUndefined();
    // Gemini's calls reach Claude under ids Anthropic accepts.
    const messages = (claude.body as { messages: Array<{ content: unknown }> }).messages;
    for (const block of messages.flatMap((message) =>
      Array.isArray(message.content) ? message.content : [],
    ))
      if ((block as { type?: string }).type === 'tool_use')
        expect((block as { id: string }).id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it("a Gemini call id Claude's id rule refuses (one id map serves both families) reaches Claude rewritten, paired with its result", async () => {
    const session = createSession();
    const transcript: Item[] = [user('Look it up.')];
    const candidate = {
      content: {
        role: 'model',
        parts: [
          {
            functionCall: { id: 'fc.1/alpha', name: 'lookup', args: { q: 'x' } },
            thoughtSignature: 'sig-g1',
          },
        ],
      },
      finishReason: 'STOP',
    };
    const gemini = await runTurn(
      vertex,
      geminiOnVertex,
      transcript,
      {
        type: 'sse',
        events: [
          {
            data: {
              candidates: [candidate],
              usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3 },
              modelVersion: 'gemini-3-pro-preview',
            },
          },
        ],
      },
      { session },
    );
    transcript.push(assistant(gemini.response), answers(gemini.response));
    // Gemini gets its own id back; Claude one its rule takes, on the call and on its result alike.
    const again = await runTurn(vertex, geminiOnVertex, transcript, text('gemini', 'x.'), { session });
    expect(JSON.stringify(again.body)).toContain('"id":"fc.1/alpha"');
    const claude = await runTurn(vertex, claudeOnVertex, transcript, text('vertex-anthropic', 'x.'), {
      session,
    });
    const blocks = (
      claude.body as { messages: Array<{ content: Array<Record<string, unknown>> }> }
    ).messages.flatMap((message) => message.content);
    const use = blocks.find((block) => block.type === 'tool_use');
    const result = blocks.find((block) => block.type === 'tool_result');
    expect(use?.id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(result?.tool_use_id).toBe(use?.id);
  });

  it("Claude → Gemini → Claude → Gemini on one session: each family gets its own signatures back, never the other's", async () => {
    const session = createSession();
    const transcript: Item[] = [user('Question 1.')];
    const order = ['claude', 'gemini', 'claude', 'gemini'] as const;
    const bodies: string[] = [];
    for (const [index, family] of order.entries()) {
      const q = `Q${index + 1}`;
      const claude = family === 'claude';
      const turn = await runTurn(
        vertex,
        claude ? claudeOnVertex : geminiOnVertex,
        transcript,
        claude ? claudeToolTurn(`sig-claude-${q}`, q) : geminiToolTurn(`sig-gemini-${q}`, q),
        { session, reasoning: claude },
      );
      bodies.push(JSON.stringify(turn.body));
      transcript.push(assistant(turn.response), answers(turn.response), user(`Next (${index + 2}).`));
    }
    // Turn 3 (Claude) has its turn-1 signature, not Gemini's; turn 4 (Gemini) its turn-2 ones, not Claude's.
    expect(bodies[2]).toContain('"signature":"sig-claude-Q1"');
    expect(bodies[2]).not.toContain('sig-gemini');
    expect(bodies[3]).toContain('"thoughtSignature":"sig-gemini-Q2"');
    expect(bodies[3]).toContain('"thoughtSignature":"sig-gemini-Q2-thought"');
    expect(bodies[3]).not.toContain('sig-claude');
  });

  it('redacted thinking and a server-tool block of Claude go back to Claude, never to Gemini', async () => {
    const session = createSession();
    const transcript: Item[] = [
      user('Search the web for the news.'),
      {
        kind: 'assistant',
        parts: [
          {
            type: 'reasoning',
            text: '',
            data: 'redacted-blob',
            redacted: true,
            provider: 'vertex/anthropic',
          },
          {
            type: 'custom',
            provider: 'vertex/anthropic',
            kind: 'server_tool_use',
            data: {
              type: 'server_tool_use',
              id: 'srvtoolu_01',
              name: 'web_search',
              input: { query: 'news' },
            },
          },
          { type: 'text', text: 'Nothing new.' },
        ],
      },
      user('Thanks.'),
    ];
    const claude = await runTurn(vertex, claudeOnVertex, transcript, text('vertex-anthropic', 'Ok.'), {
      session,
      reasoning: true,
    });
    expect(claude.drops).toEqual([]);
    const claudeBody = JSON.stringify(claude.body);
    expect(claudeBody).toContain('{"type":"redacted_thinking","data":"redacted-blob"}');
    expect(claudeBody).toContain('srvtoolu_01');
    const gemini = await runTurn(vertex, geminiOnVertex, transcript, text('gemini', 'Ok.'), { session });
    const geminiBody = JSON.stringify(gemini.body);
    expect(geminiBody).not.toContain('redacted-blob');
    expect(geminiBody).not.toContain('srvtoolu_01');
    expect(gemini.drops).toEqual([
      foreignReasoning('vertex/anthropic', 'vertex/google'),
      {
        blockType: 'custom',
        reason: 'vertex/anthropic server_tool_use content has no vertex/google equivalent',
      },
    ]);
  });

  it('a transcript stored before families were recorded (bare vertex tags): neither family takes its artifacts, each drop says why', async () => {
    const session = createSession();
    const legacyCall = 'tu_01LEGACYVERTEXCALL0000000' as ToolCallPart['id'];
    const transcript: Item[] = [
      user('Look it up.'),
      {
        kind: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Old thought.', signature: 'legacy-sig', provider: 'vertex' },
          {
            type: 'tool-call',
            id: legacyCall,
            name: 'lookup',
            input: { q: 'old' },
            signature: 'legacy-call-sig',
            provider: 'vertex',
          },
        ],
      },
      {
        kind: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: legacyCall,
            name: 'lookup',
            output: { type: 'text', text: 'old answer' },
            isError: false,
          },
        ],
      },
    ];
    const reason =
      'reasoning tagged vertex was stored before Switchyard recorded which model family on vertex produced it; ';
    for (const [model, family, script] of [
      [claudeOnVertex, 'vertex/anthropic', text('vertex-anthropic', 'Ok.')],
      [geminiOnVertex, 'vertex/google', text('gemini', 'Ok.')],
    ] as const) {
      const turn = await runTurn(vertex, model, transcript, script, {
        session,
        reasoning: model === claudeOnVertex,
      });
      const body = JSON.stringify(turn.body);
      expect(body).not.toContain('legacy-sig');
      expect(body).not.toContain('legacy-call-sig');
      expect(turn.drops).toEqual([{ blockType: 'reasoning', reason: `${reason}${family} cannot verify it` }]);
    }
    // Gemini 3 still gets a valid body: the old call goes with the documented sentinel.
    expect(JSON.stringify(emulator.requests.at(-1)?.body)).toContain('skip_thought_signature_validator');
  });
});

describe('Bedrock: Claude and Nova behind one adapter', () => {
  it('Claude → Nova → Claude: the recorded Claude signature skips Nova (WARN) and comes back to Claude verbatim', async () => {
    const session = createSession();
    const transcript: Item[] = [user('How many r in strawberry?')];
    const claude = await runTurn(
      bedrock,
      claudeOnBedrock,
      transcript,
      { type: 'replay', file: fixture('bedrock/amazon-bedrock-reasoning.json') },
      { session, complete: true, reasoning: true },
    );
    expect(tags(claude.response.content)).toEqual(new Set(['bedrock/anthropic']));
    transcript.push(assistant(claude.response), user('And in raspberry?'));
    const nova = await runTurn(
      bedrock,
      novaOnBedrock,
      transcript,
      { type: 'replay', file: fixture('bedrock/branches/amazon-bedrock-nova-2-high-reasoning-success.json') },
      { session, complete: true, reasoning: true },
    );
    expect(tags(nova.response.content)).toEqual(new Set(['bedrock/amazon']));
    const novaBody = JSON.stringify(nova.body);
    expect(novaBody).not.toContain(recorded.bedrockClaude);
    expect(novaBody).not.toContain('reasoningContent');
    expect(nova.drops).toEqual([foreignReasoning('bedrock/anthropic', 'bedrock/amazon')]);
    transcript.push(assistant(nova.response), user('Thanks.'));
    const back = await runTurn(bedrock, claudeOnBedrock, transcript, text('bedrock-converse', 'Ok.'), {
      session,
      reasoning: true,
    });
    expect(JSON.stringify(back.body)).toContain(recorded.bedrockClaude);
    expect(back.drops).toEqual([foreignReasoning('bedrock/amazon', 'bedrock/anthropic')]);
  });

  it('recorded redacted reasoning and bare-tagged (stored) Claude reasoning go back to Claude only', async () => {
    const session = createSession();
    const transcript: Item[] = [user('Think hard.')];
    const claude = await runTurn(
      bedrock,
      claudeOnBedrock,
      transcript,
      { type: 'replay', file: fixture('bedrock/branches/amazon-bedrock-redacted-content.json') },
      { session, complete: true, reasoning: true },
    );
    const redacted = claude.response.content.find((part) => part.type === 'reasoning');
    expect(redacted).toMatchObject({ redacted: true, provider: 'bedrock/anthropic' });
    transcript.push(assistant(claude.response), answers(claude.response), {
      kind: 'assistant',
      parts: [{ type: 'reasoning', text: 'Stored thought.', signature: 'stored-sig', provider: 'bedrock' }],
    });
    transcript.push(user('Go on.'));
    const nova = await runTurn(bedrock, novaOnBedrock, transcript, text('bedrock-converse', 'Ok.'), {
      session,
    });
    expect(JSON.stringify(nova.body)).not.toContain('redactedContent');
    expect(JSON.stringify(nova.body)).not.toContain('stored-sig');
    expect(nova.drops.map((drop) => drop.blockType)).toEqual(['reasoning', 'reasoning']);
    const back = await runTurn(bedrock, claudeOnBedrock, transcript, text('bedrock-converse', 'Ok.'), {
      session,
      reasoning: true,
    });
    const body = JSON.stringify(back.body);
    expect(body).toContain(`"redactedContent":"${redacted?.data}"`);
    expect(body).toContain('"signature":"stored-sig"');
    expect(back.drops).toEqual([]);
  });
});
