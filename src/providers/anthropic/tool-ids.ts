/** Anthropic's rule for tool-call ids (`^[a-zA-Z0-9_-]{1,64}$`), used when a foreign id is sent back. */
import type { ToolIdRule } from '../../core/tool-id-map.ts';
import { wordCharactersToolId } from '../common/tool-ids.ts';

/** Anthropic takes 1–64 letters, digits, `_` and `-`: the shared word-characters rule. */
export const toolIdRule: ToolIdRule = wordCharactersToolId;
