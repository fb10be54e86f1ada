/** Tool-call id rules of Chat Completions hosts, chosen by the `toolIdRule` quirk (Mistral: 9 alphanumerics). */
import { anyToolId, hashId, type ToolIdRule } from '../../core/tool-id-map.ts';
import { wordCharactersToolId } from '../common/tool-ids.ts';
import type { ToolIdRuleName } from './quirks.ts';

/** Mistral: exactly 9 letters or digits; any other id becomes a 9-character digest. */
export const nineAlphanumericToolId: ToolIdRule = {
  test: (id) => /^[a-zA-Z0-9]{9}$/.test(id),
  rewrite: (id) => hashId(id, 9),
};

/**
 * OpenAI: any characters, at most 40 (a longer `tool_calls[].id` is refused: "string too long …
 * maximum length 40"); a longer id — written by another provider or client — becomes a digest.
 */
export const fortyCharactersToolId: ToolIdRule = {
  test: (id) => id.length > 0 && id.length <= 40,
  rewrite: (id) => `call_${hashId(id, 24)}`,
};

/** The rule behind each `toolIdRule` quirk value (`anthropic`: Anthropic's compatible endpoint). */
export const toolIdRules: Readonly<Record<ToolIdRuleName, ToolIdRule>> = {
  any: anyToolId,
  openai: fortyCharactersToolId,
  'nine-alphanumeric': nineAlphanumericToolId,
  anthropic: wordCharactersToolId,
};
