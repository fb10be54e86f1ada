/** The account headers both OpenAI protocols send: `OpenAI-Organization` and `OpenAI-Project`. */

/** The organization and project an OpenAI call is billed to. */
export interface OpenAIAccount {
  /** Sent as `OpenAI-Organization`. */
  organization?: string;
  /** Sent as `OpenAI-Project`. */
  project?: string;
}

/** The `OpenAI-Organization` / `OpenAI-Project` headers for the options that name them. */
export function accountHeaders(account: OpenAIAccount): Record<string, string> {
  const headers: Record<string, string> = {};
  if (account.organization !== undefined) headers['OpenAI-Organization'] = account.organization;
  if (account.project !== undefined) headers['OpenAI-Project'] = account.project;
  return headers;
}
