/**
 * A Responses request's `input` as `GET /v1/responses/{id}/input_items` lists it: every item with
 * an id and a `type`, a message's content as a list of parts — the shapes of the SDKs'
 * `ResponseItem` — and otherwise the item as the client sent it.
 */
import { isJsonObject } from '../../core/json.ts';
import { responsesInputItemId } from '../ids.ts';

/** An input item as listed: the client's fields, with its id (the client's, else a stable one). */
export type ListedInputItem = Record<string, unknown> & { id: string; type: string };

/** The id prefix of an item type the client sent without an id (`item` for the rest). */
const prefixes: Record<string, string> = {
  message: 'msg',
  function_call: 'fc',
  function_call_output: 'fco',
  custom_tool_call: 'ctc',
  custom_tool_call_output: 'ctco',
  reasoning: 'rs',
};

/**
 * The listed form of a request's `input` (a string is one user message). Decoding accepted the
 * input already, so this only fills in what the list's shapes always carry; an id the client gave
 * is kept, one it did not give is made from the response's id and the item's place
 * (`responsesInputItemId`), the same on every read.
 */
export function listInputItems(input: unknown, responseId: string): ListedInputItem[] {
  if (typeof input === 'string')
    return [message({ role: 'user', content: input }, responsesInputItemId('msg', responseId, 0))];
  if (!Array.isArray(input)) return [];
  return input.flatMap((item: unknown, index) => {
    if (!isJsonObject(item)) return [];
    const type = typeof item.type === 'string' ? item.type : 'message';
    const id =
      typeof item.id === 'string' && item.id !== ''
        ? item.id
        : responsesInputItemId(prefixes[type] ?? 'item', responseId, index);
    return [type === 'message' ? message(item, id) : { ...item, id, type }];
  });
}

/** A message as listed: typed, with a status, its text content a one-part list. */
function message(item: Record<string, unknown>, id: string): ListedInputItem {
  const assistant = item.role === 'assistant';
  const content =
    typeof item.content === 'string'
      ? [
          assistant
            ? { type: 'output_text', text: item.content, annotations: [] }
            : { type: 'input_text', text: item.content },
        ]
      : Array.isArray(item.content)
        ? item.content.map(withoutInlineData)
        : item.content;
  return { ...item, id, type: 'message', status: item.status ?? 'completed', content };
}

/**
 * A content part without its inline bytes (a `data:` image URL, a file's `file_data`): they can be
 * megabytes, the stored transcript holds them already, and OpenAI too lists an input image without
 * its URL unless asked (`include`, which the gateway does not honour here).
 */
function withoutInlineData(part: unknown): unknown {
  if (!isJsonObject(part)) return part;
  const inlineImage = typeof part.image_url === 'string' && part.image_url.startsWith('data:');
  if (!inlineImage && part.file_data === undefined) return part;
  const kept = { ...part };
  if (inlineImage) delete kept.image_url;
  delete kept.file_data;
  return kept;
}
