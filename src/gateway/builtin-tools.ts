/**
 * Which OpenAI Responses built-in tools a client may take to a Responses upstream
 * (`gateway.builtin_tools`). They run under the operator's key: a `file_search` names vector store
 * ids and a `code_interpreter` a container id of the operator's account — one client could name
 * another's — and an `mcp` tool has OpenAI call a server of the client's choosing. So by default
 * only the tools that reach nothing of the account but the model pass; an operator adds the rest.
 */
export const defaultBuiltinTools: readonly string[] = [
  'web_search',
  'web_search_preview',
  'image_generation',
  'local_shell',
  'shell',
  'apply_patch',
  'tool_search',
];

/** The built-in tool types allowed: the configured list, else {@link defaultBuiltinTools}. */
export function builtinTools(configured: readonly string[] | undefined): ReadonlySet<string> {
  return new Set(configured ?? defaultBuiltinTools);
}
