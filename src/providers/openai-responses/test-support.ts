/** Helpers for the Responses tests: an independent oracle over recorded files, a provider context. */
import type { AdapterSession } from '../../core/adapter.ts';
import { readRecorded } from '../../../test/support/fixtures.ts';
import { createTestContext as createChatTestContext } from '../openai-chat/test-support.ts';
import type { WireResponse, WireUsage } from './api.ts';

/** What a recorded file says, read without the adapter's code. */
export interface Oracle {
  text: string;
  functionCalls: string[];
  customKinds: string[];
  reasoningItems: number;
  status: string | undefined;
  incompleteReason: string | undefined;
  usage: WireUsage | undefined;
  /** Completed `web_search_call` items: the searches billed per call. */
  webSearches: number;
  responseId: string | undefined;
}

interface OracleItem {
  type: string;
  status?: string;
  name?: string;
  call_id?: string | null;
  execution?: string;
  environment?: { type?: string } | null;
  content?: Array<{ type: string; text?: string; refusal?: string }>;
}

/**
 * The tool a built-in call the client must run stands for (OpenAI's docs: apply_patch and local
 * shell calls always, a shell call without a hosted container, a tool search with execution client).
 */
function clientTool(item: OracleItem): string | undefined {
  if (typeof item.call_id !== 'string') return undefined;
  if (item.type === 'apply_patch_call') return 'apply_patch';
  if (item.type === 'local_shell_call') return 'local_shell';
  if (item.type === 'shell_call' && (item.environment ?? { type: 'local' }).type === 'local') return 'shell';
  if (item.type === 'tool_search_call' && item.execution === 'client') return 'tool_search';
  return undefined;
}

function fromItems(items: OracleItem[], streamedText: string | undefined) {
  const text = items
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content ?? [])
    .map((entry) => entry.text ?? entry.refusal ?? '')
    .join('');
  return {
    text: streamedText ?? text,
    functionCalls: items.flatMap((item) =>
      item.type === 'function_call' ? [String(item.name)] : (clientTool(item) ?? []),
    ),
    customKinds: items
      .filter((item) => clientTool(item) === undefined)
      .map((item) => item.type)
      .filter((type) => type !== 'message' && type !== 'reasoning' && type !== 'function_call'),
    reasoningItems: items.filter((item) => item.type === 'reasoning').length,
    webSearches: items.filter((item) => item.type === 'web_search_call' && item.status === 'completed')
      .length,
  };
}

/** Reads a `.json` body or the first response of a `.chunks.txt` stream (up to its terminal event). */
export function oracleOf(path: string): Oracle {
  const raw = readRecorded(path);
  if (path.endsWith('.json')) {
    const body = JSON.parse(raw);
    return {
      ...fromItems(body.output ?? [], undefined),
      status: body.status,
      incompleteReason: body.incomplete_details?.reason,
      usage: body.usage ?? undefined,
      responseId: body.id,
    };
  }
  const items: OracleItem[] = [];
  let text = '';
  let terminal: WireResponse | undefined;
  let responseId: string | undefined;
  for (const line of raw.split('\n')) {
    if (line.trim() === '' || terminal !== undefined) continue;
    const event = JSON.parse(line);
    if (event.type === 'response.created') responseId = event.response.id;
    if (event.type === 'response.output_text.delta') text += event.delta;
    // In output order (the terminal response's `output`), whatever order the items ended in.
    if (event.type === 'response.output_item.done') items[event.output_index ?? items.length] = event.item;
    if (['response.completed', 'response.incomplete', 'response.failed'].includes(event.type))
      terminal = event.response;
  }
  return {
    ...fromItems(items.filter(Boolean), text),
    status: terminal?.status,
    incompleteReason: terminal?.incomplete_details?.reason,
    usage: terminal?.usage ?? undefined,
    responseId,
  };
}

/** The canonical usage the wire usage (and the count of completed web searches) stands for, computed independently. */
export function expectedUsage(usage: WireUsage | undefined, webSearches = 0) {
  const input = usage?.input_tokens ?? 0;
  const cached = usage?.input_tokens_details?.cached_tokens ?? 0;
  const output = usage?.output_tokens ?? 0;
  const reasoning = usage?.output_tokens_details?.reasoning_tokens ?? 0;
  const total = reasoning > output ? output + reasoning : output;
  const buckets = {
    input: Math.max(0, input - cached),
    cacheRead: cached,
    cacheWrite: 0,
    output: total,
    reasoning,
  };
  return webSearches > 0 ? { ...buckets, webSearches } : buckets;
}

/** A provider context for direct calls, recording its WARN entries (the Chat tests' helper, Responses defaults). */
export function createTestContext(
  fields: { provider?: string; model?: string; stream?: boolean; session?: AdapterSession } = {},
): ReturnType<typeof createChatTestContext> {
  return createChatTestContext({ model: 'gpt-5-mini', path: '/responses', ...fields });
}
