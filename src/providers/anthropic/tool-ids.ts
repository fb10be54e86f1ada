/** Anthropic's rule for tool-call ids (`^[a-zA-Z0-9_-]{1,64}$`), used when a foreign id is sent back. */
import { hashId, type ToolIdRule } from '../../core/tool-id-map.ts';

/**
 * Anthropic takes 1–64 letters, digits, `_` and `-`. Other characters become `_`; an id that is
 * then still too long (or empty) becomes `t` + a 40-character digest.
 */
export const toolIdRule: ToolIdRule = {
  test: (id) => /^[a-zA-Z0-9_-]{1,64}$/.test(id),
  rewrite: (id) => {
    const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, '_');
    return cleaned.length <= 64 && cleaned.length > 0 ? cleaned : `t${hashId(id, 40)}`;
  },
};
