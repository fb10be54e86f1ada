/**
 * The text parts of one tool result as the single string a protocol takes there (OpenAI Chat's
 * `tool` message, Responses' `function_call_output`, Gemini's function response): one rule for
 * every path, so a result reads the same whichever upstream gets it. Separate parts are separate
 * blocks (an MCP result's text contents, Anthropic's text blocks), so each pair is parted by a
 * blank line, as instructions are joined (docs/contract.md §4.1.2); an empty part adds nothing.
 */
export function joinToolResultTexts(texts: readonly string[]): string {
  if (texts.length === 1) return texts[0]!;
  return texts.filter((text) => text !== '').join('\n\n');
}
