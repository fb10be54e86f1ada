/** The tool-call id rule of the Responses API. */
import { hashId, type ToolIdRule } from '../../core/tool-id-map.ts';

/**
 * OpenAI Responses: a `call_id` of any characters, at most 64 (a longer one is refused: "string too
 * long. Expected a string with maximum length 64"); a longer id — written by another provider or
 * client, such as an MCP tool's — becomes a digest, the same on the call and on its output.
 */
export const sixtyFourCharactersToolId: ToolIdRule = {
  test: (id) => id.length > 0 && id.length <= 64,
  rewrite: (id) => `call_${hashId(id, 40)}`,
};
