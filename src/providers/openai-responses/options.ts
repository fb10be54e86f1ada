/** Options of `createOpenAIResponses` and the Responses presets. */
import type { CapabilityOverrides } from '../../core/capabilities.ts';
import type { OpenAIAccount } from '../openai/headers.ts';
import type { AdapterOptions } from '../common/options.ts';

/**
 * Where the conversation lives:
 * - `stateless` (default): `store: false`, the whole transcript replayed every turn (reasoning
 *   carried as `encrypted_content`). Works for zero-data-retention organisations and across swaps.
 * - `previous-response`: `store: true`; each turn after the first sends only the new items with
 *   `previous_response_id`, as long as the transcript extends what the server holds; otherwise one
 *   full replay starts a new chain.
 * - `{conversation}`: the items go into that server-side conversation; only new items are sent while
 *   the transcript extends it; otherwise a full stateless replay (the conversation is left behind).
 */
export type ResponsesStateMode = 'stateless' | 'previous-response' | { conversation: string };

/** Options of the OpenAI Responses adapter. */
export interface OpenAIResponsesOptions extends AdapterOptions, CapabilityOverrides, OpenAIAccount {
  /** API key; default: the `OPENAI_API_KEY` environment variable. */
  apiKey?: string;
  /** Stateless replay (default) or server-side state. */
  state?: ResponsesStateMode;
  /**
   * Send `strict: true` on function tools (schemas made strict-ready; a schema that cannot be is sent
   * with `strict: false` and a WARN). Default false: the Responses API's own default is strict, so
   * `strict: false` is sent explicitly.
   */
  strictTools?: boolean;
}
