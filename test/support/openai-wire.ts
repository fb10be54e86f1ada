/** Small builders of OpenAI wire bodies the gateway tests script their upstreams with. */

/** A Chat Completions stream chunk of one choice (`gpt-5-mini`, id `chatcmpl-s`). */
export const chatChunk = (delta: object, finish: string | null = null) => ({
  id: 'chatcmpl-s',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-5-mini',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/** A `url_citation` in Chat's form: its fields nested under `url_citation`. */
export const chatCitation = (start: number, end: number, url: string, title = 'Weather') => ({
  type: 'url_citation',
  url_citation: { start_index: start, end_index: end, url, title },
});

/** A `url_citation` in Responses' flat form (an `output_text`'s annotation). */
export const flatCitation = (start: number, end: number, url: string, title = 'Weather') => ({
  type: 'url_citation',
  start_index: start,
  end_index: end,
  url,
  title,
});

/** A whole Responses body of one assistant message with these content parts. */
export const responsesBody = (content: unknown[]) => ({
  id: 'resp_1',
  object: 'response',
  created_at: 1_700_000_000,
  status: 'completed',
  model: 'gpt-5-mini',
  output: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content }],
  usage: { input_tokens: 5, output_tokens: 3, total_tokens: 8 },
});
