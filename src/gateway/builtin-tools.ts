/**
 * Which provider built-in tools a client may take to its protocol's own upstream
 * (`gateway.builtin_tools`): an OpenAI Responses client's built-in tools, and an Anthropic client's
 * server tools. They run under the operator's key: a `file_search` names vector store ids and a
 * `code_interpreter` or Anthropic `code_execution` a container of the operator's account — one
 * client could name another's — and an `mcp` tool has OpenAI call a server of the client's choosing.
 * So by default only the tools that reach nothing of the account but the model pass; an operator
 * adds the rest. A name here is a tool's kind: a Responses tool's type, but `hosted_shell` for a
 * `shell` run in a container of the account (`builtinKind`; not listed by default, for the same
 * reason as `code_interpreter`); an Anthropic server tool's type without its version date
 * (`web_search_20250305` → `web_search`: `serverToolKind`). The Anthropic tools the client runs
 * (`bash_…`, `text_editor_…`, `computer_…`, `memory_…`) are no server tools and always pass.
 */
export const defaultBuiltinTools: readonly string[] = [
  // Both protocols' web search (Responses `web_search`, Anthropic `web_search_…`).
  'web_search',
  'web_search_preview',
  'image_generation',
  'local_shell',
  'shell',
  'apply_patch',
  'tool_search',
  // Anthropic's: a page fetched by Anthropic, and a search of the request's own deferred tools.
  'web_fetch',
  'tool_search_tool_regex',
  'tool_search_tool_bm25',
];

/** The built-in tool types allowed: the configured list, else {@link defaultBuiltinTools}. */
export function builtinTools(configured: readonly string[] | undefined): ReadonlySet<string> {
  return new Set(configured ?? defaultBuiltinTools);
}

/**
 * What `POST /v1/responses/input_tokens` adds for one built-in tool definition. OpenAI puts each
 * one's own instructions in the prompt, text the gateway never sees, so no tokenizer can count it:
 * a fixed estimate per definition, from the recorded responses of one short prompt with one tool
 * (test/fixtures/recorded/openai/responses): `shell` 157 input tokens in all, `apply_patch` 642.
 * Any other type, whose recorded input also holds search results or generated files, counts 200:
 * the size of a function tool with a paragraph of description.
 */
export const builtinToolTokens: Readonly<Record<string, number>> = {
  shell: 150,
  local_shell: 150,
  apply_patch: 600,
};

/** {@link builtinToolTokens} for a type it does not list. */
export const defaultBuiltinToolTokens = 200;

/** The estimated tokens of the built-in tool definitions a request still offers (`tool_choice` entries are no definition). */
export function countBuiltinTools(tools: ReadonlyArray<{ path: string; type: string }> | undefined): number {
  let tokens = 0;
  for (const { path, type } of tools ?? [])
    if (path !== 'tool_choice') tokens += builtinToolTokens[type] ?? defaultBuiltinToolTokens;
  return tokens;
}
