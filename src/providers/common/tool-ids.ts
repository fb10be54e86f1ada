/** Tool-call id rules more than one protocol uses (a provider's own rule stays in its folder's `tool-ids.ts`). */
import { hashId, type ToolIdRule } from '../../core/tool-id-map.ts';

/**
 * 1–64 letters, digits, `_` and `-` (Anthropic's Messages API, and its Chat Completions-compatible
 * endpoint). Other characters become `_`; an id that is then still too long (or empty) becomes `t` +
 * a 40-character digest.
 */
export const wordCharactersToolId: ToolIdRule = {
  test: (id) => /^[a-zA-Z0-9_-]{1,64}$/.test(id),
  rewrite: (id) => {
    const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, '_');
    return cleaned.length <= 64 && cleaned.length > 0 ? cleaned : `t${hashId(id, 40)}`;
  },
};
