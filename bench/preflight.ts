/**
 * `node bench/preflight.ts`: CPU per call of the shared runtime's pre-flight capability check
 * (`src/providers/common/preflight.ts`) — capabilities, media types, output limit, the context-window
 * bound — on three request shapes, with Anthropic's declared capabilities and estimator. Prints
 * microseconds per call (process CPU time, so a busy machine inflates it only mildly).
 */
import { userText, type Item } from '../src/core/transcript.ts';
import type { ToolCallId } from '../src/core/ids.ts';
import type { CanonicalRequest } from '../src/core/request.ts';
import { anthropicCapabilities } from '../src/providers/anthropic/capabilities.ts';
import { estimateInputTokens } from '../src/providers/anthropic/tokens.ts';
import { preflight } from '../src/providers/common/preflight.ts';

const sentence = 'The quick brown fox jumps over the lazy dog while the agent reads another file. ';

function agentTranscript(turns: number): Item[] {
  const items: Item[] = [userText(sentence.repeat(20))];
  for (let turn = 0; turn < turns; turn++) {
    const id = `tu_${turn}` as ToolCallId;
    items.push({
      kind: 'assistant',
      parts: [{ type: 'tool-call', id, name: 'read', input: { path: `src/${turn}.ts` } }],
    });
    items.push({
      kind: 'tool',
      parts: [
        {
          type: 'tool-result',
          callId: id,
          isError: false,
          output: { type: 'text', text: sentence.repeat(6) },
        },
      ],
    });
  }
  return items;
}

const tools = [
  {
    name: 'read',
    description: 'Reads a file',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  },
];
const shapes: Record<string, CanonicalRequest> = {
  'one user message': { model: 'claude-sonnet-4-5', transcript: [userText('Hello')], maxOutputTokens: 1024 },
  'agent transcript, 200 tool turns (~100 KB)': {
    model: 'claude-sonnet-4-5',
    transcript: agentTranscript(200),
    tools,
    maxOutputTokens: 4096,
  },
  '1 MB of text (bound exceeded: the estimator runs)': {
    model: 'claude-sonnet-4-5',
    transcript: [userText(sentence.repeat(13_000))],
    maxOutputTokens: 4096,
  },
};

const capabilities = anthropicCapabilities('claude-sonnet-4-5');
const context = {
  provider: 'anthropic',
  ownName: 'anthropic',
  model: 'claude-sonnet-4-5',
  estimateInputTokens,
  warn: () => {},
};

for (const [name, request] of Object.entries(shapes)) {
  const iterations = name.startsWith('1 MB') ? 20 : 2_000;
  for (let index = 0; index < Math.min(iterations, 50); index++) {
    try {
      preflight(request, capabilities, context);
    } catch {
      // A context overflow is a valid outcome of the 1 MB shape.
    }
  }
  const start = process.cpuUsage();
  let outcome = 'passed';
  for (let index = 0; index < iterations; index++) {
    try {
      preflight(request, capabilities, context);
    } catch (error) {
      outcome = (error as { providerCode?: string }).providerCode ?? 'error';
    }
  }
  const used = process.cpuUsage(start);
  const micros = (used.user + used.system) / iterations;
  console.log(`${name.padEnd(50)} ${micros.toFixed(1).padStart(10)} µs/call  (${outcome})`);
}
