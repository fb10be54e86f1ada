/** The model list of an OpenAI-protocol host (`GET /models`), for Chat Completions and Responses. */
import type { ModelInfo } from '../../core/adapter.ts';

/** Parses a `GET /models` list (`{data: [{id}]}`) into canonical model infos. */
export function parseModelList(body: unknown, provider: string): ModelInfo[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return [];
  const models: ModelInfo[] = [];
  for (const entry of data) {
    const id = (entry as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && id !== '') models.push({ id: `${provider}:${id}`, name: id });
  }
  return models;
}
