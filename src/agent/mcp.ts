/** MCP tool sources: tools of a Model Context Protocol server (stdio or streamable HTTP) as agent tools. */
import { safeToolName } from '../core/tool-names.ts';
import { AdapterError } from '../core/errors/adapter-error.ts';
import { ServerError } from '../core/errors/server-error.ts';
import {
  redactError,
  redactUrl,
  registerConfiguredSecrets,
  secretHeaderValues,
  secretQueryValues,
  urlCredentials,
} from '../core/redaction.ts';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { JsonObject, JsonValue } from '../core/json.ts';
import type { Part } from '../core/transcript.ts';
import { normalizeMediaType } from '../core/capabilities.ts';
import { type ExecutableTool, tool as createTool } from '../schemas/structured.ts';
import { type ApprovalRule, type ToolReturn, toolOutput } from './tool.ts';
import { pushAll } from '../core/arrays.ts';
import { consoleLogger, guardLogger, type Logger } from '../core/logger.ts';

/** Where the MCP server is. */
export type McpServerConfig =
  | {
      transport: 'stdio';
      command: string;
      args?: string[];
      env?: Record<string, string>;
      cwd?: string;
      /** The server's stderr: `inherit` (default), `ignore` or `pipe`. */
      stderr?: 'inherit' | 'ignore' | 'pipe';
    }
  | { transport: 'http'; url: string | URL; headers?: Record<string, string> }
  /** An already connected SDK client (any transport). */
  | { client: McpClient };

/**
 * The part of the MCP SDK's `Client` the agent uses; any connected SDK client fits. Declared here so
 * that the types of `switchyard-ai/agent` never name the optional peer: a project without it
 * typechecks with `skipLibCheck: false`.
 */
export interface McpClient {
  listTools(
    params: { cursor?: string },
    options?: { timeout?: number },
  ): Promise<{ tools?: unknown; nextCursor?: unknown }>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    resultSchema?: undefined,
    options?: { signal?: AbortSignal; timeout?: number },
  ): Promise<unknown>;
  close(): Promise<void>;
}

/** How MCP tools become agent tools. */
export interface McpToolOptions {
  /** Prefix added to every tool name (`github_` → `github_create_issue`), to avoid clashes. */
  prefix?: string;
  /** Approval per tool: all, none, or decided from the tool name and input. */
  needsApproval?: boolean | ((name: string, input: JsonObject) => boolean | Promise<boolean>);
  /** Per-call timeout in ms (also sent to the SDK as the request timeout). */
  timeoutMs?: number;
  /** Only these server tools (by server name). */
  include?: string[];
  /** Client name announced to the server. Default `switchyard-agent`. */
  clientName?: string;
  /** Where a tool left out of the listing is reported (two of one name). Default: the console logger. */
  logger?: Logger;
}

/** A connected MCP server and its tools. */
export interface McpToolSource {
  readonly tools: ExecutableTool<JsonObject>[];
  readonly client: McpClient;
  /** Lists the server's tools again (after a `tools/list_changed`). */
  refresh(): Promise<ExecutableTool<JsonObject>[]>;
  /** Closes the connection (and ends a stdio server process). */
  close(): Promise<void>;
}

/** One MCP content block, as the SDK returns it. */
type McpContent = { type: string; [key: string]: unknown };

/**
 * Connects to an MCP server and lists its tools as agent tools. Calls go to `tools/call`; a result
 * with `isError` becomes an error result, and protocol errors (unknown tool, invalid params,
 * server failures) become error results through the loop's thrown-error handling.
 * Requires the optional peer `@modelcontextprotocol/sdk`.
 */
export async function connectMcpTools(
  server: McpServerConfig,
  options: McpToolOptions = {},
): Promise<McpToolSource> {
  // `timeoutMs` bounds connecting and each page of the listing too (the SDK's default is 60 s).
  const limits = options.timeoutMs === undefined ? undefined : { timeout: options.timeoutMs };
  // Kept for redaction while the server's configuration or the connected client can be reached: the
  // client, not the source, which a caller may drop once it has the tools (they hold the client).
  const pin = (owner: object) => {
    if ('client' in server) return;
    // An environment value is registered whole: its last word is not a `Bearer` token.
    if (server.transport === 'stdio')
      registerConfiguredSecrets(owner, secretEnvValues(server.env), { lastWord: false });
    else registerConfiguredSecrets(owner, serverSecrets(server));
  };
  pin(server);
  let client: McpClient;
  try {
    client =
      'client' in server
        ? server.client
        : await connect(server, options.clientName ?? 'switchyard-agent', limits);
  } catch (error) {
    throw unavailable('connect', error);
  }
  const source: McpToolSource = {
    tools: [],
    client,
    async refresh() {
      let listed: ListedTool[];
      try {
        listed = await listAll(client, limits);
      } catch (error) {
        throw unavailable('tools/list', error);
      }
      const tools = uniqueTools(
        listed.filter((tool) => options.include === undefined || options.include.includes(tool.name)),
        client,
        options,
      );
      (source.tools as ExecutableTool<JsonObject>[]).splice(0, source.tools.length, ...tools);
      return source.tools;
    },
    close: () => client.close(),
  };
  pin(client);
  try {
    await source.refresh();
  } catch (error) {
    if (!('client' in server)) await client.close().catch(() => {});
    throw error;
  }
  return source;
}

/**
 * The secrets in an HTTP server's configuration, registered with the redaction module when it is
 * connected so that no error, log line or observer event prints them: secret header values
 * (`Authorization: Bearer …`), the URL's userinfo and secret query values (`?token=`, `?api_key=`).
 * A stdio server's are its {@link secretEnvValues}.
 */
function serverSecrets(server: Extract<McpServerConfig, { transport: 'http' }>): string[] {
  const url = String(server.url);
  return [...secretHeaderValues(server.headers), ...urlCredentials(url), ...secretQueryValues(url)];
}

/**
 * Environment variable names that hold a credential: key, token, secret, password, credential,
 * auth (not `AUTHOR`: `GIT_AUTHOR_NAME` and `GIT_AUTHOR_EMAIL` are a name and an address, and
 * registered they would be redacted from every log, error and cassette in the process; `AUTHORIZATION`
 * is), cookie, session, signature.
 */
const SECRET_ENV_NAME = /key|token|secret|passw|credential|auth(?!or(?!iz))|cookie|session|signature/i;

/** Whether an environment variable's name says it holds a credential (`GITHUB_TOKEN`, `DB_PASSWORD`). */
function isSecretEnvName(name: string): boolean {
  return SECRET_ENV_NAME.test(name);
}

/** The values of a stdio server's environment variables named like a credential. */
function secretEnvValues(env: Record<string, string> | undefined): string[] {
  return Object.entries(env ?? {}).flatMap(([name, value]) =>
    isSecretEnvName(name) && typeof value === 'string' ? [value] : [],
  );
}

/**
 * A server that cannot be reached or answers nonsense: a classified, retryable `ServerError`
 * (`mcp_unavailable`) whose message has every secret removed (a server may echo a header back):
 * the configuration's secrets are registered ({@link serverSecrets}), and secret query parameters of
 * any URL in the message are replaced.
 */
function unavailable(step: string, error: unknown): Error {
  if (AdapterError.isInstance(error)) return error as Error;
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new ServerError({
    // Cut before it is redacted (a server's whole reply can be in it), far past what is kept.
    message: `mcp: ${step} failed: ${redactUrl(text.slice(0, 4000)).slice(0, 500)}`,
    providerCode: 'mcp_unavailable',
    retryable: true,
    cause: redactError(error),
  });
}

async function connect(
  server: Exclude<McpServerConfig, { client: McpClient }>,
  name: string,
  limits: { timeout: number } | undefined,
): Promise<Client> {
  const { Client: ClientClass } = await import('@modelcontextprotocol/sdk/client/index.js');
  const client = new ClientClass({ name, version: '1.0.0' });
  if (server.transport === 'stdio') {
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: server.env,
      cwd: server.cwd,
      stderr: server.stderr ?? 'inherit',
    });
    await client.connect(transport, limits);
  } else {
    const { StreamableHTTPClientTransport } =
      await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const url = typeof server.url === 'string' ? new URL(server.url) : server.url;
    await client.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: server.headers } }),
      limits,
    );
  }
  return client;
}

interface ListedTool {
  name: string;
  description?: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
}

/** Pages of `tools/list` followed, at most (a server whose `nextCursor` never ends is refused). */
export const maxToolPages = 100;
/** Tools one server may list, at most. */
export const maxListedTools = 2_000;

/**
 * Every tool of the server, page by page, bounded: more than {@link maxToolPages} pages, more than
 * {@link maxListedTools} tools or a cursor seen twice ends the listing with a `ServerError`
 * (`mcp_listing_unbounded`) instead of growing memory forever.
 */
async function listAll(client: McpClient, limits: { timeout: number } | undefined): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; ; pages++) {
    if (pages >= maxToolPages) throw unboundedListing(`more than ${maxToolPages} pages`);
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, limits);
    const listed = Array.isArray(page.tools) ? (page.tools as ListedTool[]) : [];
    if (tools.length + listed.length > maxListedTools)
      throw unboundedListing(`more than ${maxListedTools} tools`);
    pushAll(tools, listed);
    cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    if (cursor === undefined) return tools;
    if (cursors.has(cursor) || cursor.length > 4096) throw unboundedListing('a repeated or oversized cursor');
    cursors.add(cursor);
  }
}

function unboundedListing(why: string): ServerError {
  return new ServerError({
    message: `mcp: tools/list did not end (${why}); the server's listing is refused`,
    providerCode: 'mcp_listing_unbounded',
    retryable: false,
  });
}

/** Characters of a server's own tool name quoted in a warning (MCP puts no limit on them). */
const quotedNameLength = 100;

/**
 * The listed tools as agent tools, one per name. A server may list a name twice, or list a name
 * that is another's safe form (`files.read` is offered as `files_read_<digest>`); two tools of one name would make every agent run refuse the whole set
 * (`createAgent`: `two tools are named …`), so the later one is left out with a WARN naming both as
 * the server listed them. Checked on every listing, `refresh()` after a `tools/list_changed` too.
 */
function uniqueTools(
  listed: readonly ListedTool[],
  client: McpClient,
  options: McpToolOptions,
): ExecutableTool<JsonObject>[] {
  const kept = new Map<string, string>();
  const tools: ExecutableTool<JsonObject>[] = [];
  for (const entry of listed) {
    const tool = toAgentTool(client, entry, options);
    const first = kept.get(tool.name);
    if (first === undefined) {
      kept.set(tool.name, entry.name);
      tools.push(tool);
      continue;
    }
    guardLogger(options.logger ?? consoleLogger).warn(
      `mcp: two tools of the server are named ${tool.name}; the later one is left out`,
      {
        tool: tool.name,
        kept: first.slice(0, quotedNameLength),
        leftOut: entry.name.slice(0, quotedNameLength),
      },
    );
  }
  return tools;
}

function toAgentTool(
  client: McpClient,
  tool: ListedTool,
  options: McpToolOptions,
): ExecutableTool<JsonObject> {
  // MCP allows names no model provider takes (`files.read`, 80 characters): the model sees a safe
  // one (core/tool-names.ts), the server is called by its own.
  const listedName = `${options.prefix ?? ''}${tool.name}`;
  const name = safeToolName(listedName);
  const rule = options.needsApproval;
  const needsApproval: ApprovalRule<JsonObject> | undefined =
    typeof rule === 'function' ? (input) => rule(listedName, input) : rule;
  const schema = tool.inputSchema as JsonObject;
  const execute = async (input: JsonObject, context: { signal: AbortSignal }): Promise<ToolReturn> => {
    const result = await client.callTool({ name: tool.name, arguments: input }, undefined, {
      signal: context.signal,
      timeout: options.timeoutMs,
    });
    return convertResult(
      result as { content?: McpContent[]; structuredContent?: unknown; isError?: boolean },
    );
  };
  // Input is checked before the call (zod rebuilds the schema; the built-in subset covers the rest).
  return createTool({
    name,
    description: tool.description,
    input: schema,
    execute,
    needsApproval: needsApproval as ApprovalRule<unknown> | undefined,
    timeoutMs: options.timeoutMs,
  });
}

/** Converts an MCP `CallToolResult` into a tool output. */
export function convertResult(result: {
  content?: McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
}): ToolReturn {
  const content = result.content ?? [];
  if (result.isError === true) return toolOutput.error(content.map(textOf).join('\n') || 'MCP tool error');
  if (content.length === 0 && result.structuredContent !== undefined) {
    return toolOutput.json(result.structuredContent as JsonValue);
  }
  if (content.every((block) => block.type === 'text')) return toolOutput.text(content.map(textOf).join('\n'));
  return toolOutput.parts(content.map(convertBlock));
}

function textOf(block: McpContent): string {
  if (block.type === 'text') return String(block.text ?? '');
  if (block.type === 'resource_link') return String(block.uri ?? '');
  const resource = block.resource as { text?: string; uri?: string } | undefined;
  return resource?.text ?? resource?.uri ?? `[${block.type}]`;
}

/**
 * The image types every provider takes. A server's image of another type (`text/html`,
 * `image/svg+xml`, none) would be refused by the next model call, and by every later one of the run:
 * it becomes a note instead. So does any audio, an `audio` block or an audio resource blob: only
 * Gemini and OpenAI take audio, and a run can switch to a model that refuses it (see `documentTypes`).
 */
const mediaTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/**
 * The document types every provider that reads documents takes: PDF and text (Anthropic and OpenAI
 * take `text/*`, Gemini more, Bedrock Converse these four text types and Office formats). A resource
 * blob of another type (`application/zip`, none) would be refused by the next model call and every
 * later one, whatever the model: it becomes a note, as an image of the wrong type does. The list
 * is fixed, not the next model's own: a tool result does not know which model reads it, and a run
 * can change model (a per-turn model, a fallback, a continuation on another provider).
 */
const documentTypes = new Set(['application/pdf', 'text/plain', 'text/markdown', 'text/csv', 'text/html']);

/** Characters of a server's own type or resource name quoted in a note. */
const quotedLength = 60;

function convertBlock(block: McpContent): Part {
  if (block.type === 'image' || block.type === 'audio') {
    const mimeType = typeof block.mimeType === 'string' ? block.mimeType.toLowerCase() : undefined;
    if (block.type === 'audio' || mimeType === undefined || !mediaTypes.has(mimeType))
      return {
        type: 'text',
        text: `[${block.type} of type ${String(mimeType ?? 'unknown').slice(0, quotedLength)} not shown]`,
      };
    return {
      type: 'media',
      modality: 'image',
      mimeType,
      data: { type: 'base64', data: String(block.data) },
    };
  }
  const resource = block.resource as { blob?: unknown; mimeType?: unknown; uri?: unknown } | undefined;
  if (block.type === 'resource' && resource?.blob !== undefined) return convertBlob(resource);
  return { type: 'text', text: textOf(block) };
}

/** A resource blob: an image part, a file part, or a note when some model may refuse its type. */
function convertBlob(resource: { blob?: unknown; mimeType?: unknown; uri?: unknown }): Part {
  const mimeType = typeof resource.mimeType === 'string' ? normalizeMediaType(resource.mimeType) : undefined;
  const uri = typeof resource.uri === 'string' ? resource.uri : undefined;
  const data = { type: 'base64' as const, data: String(resource.blob) };
  if (mimeType !== undefined && mediaTypes.has(mimeType))
    return { type: 'media', modality: 'image', mimeType, data };
  if (mimeType !== undefined && documentTypes.has(mimeType))
    return { type: 'file', mimeType, data, ...(uri === undefined ? {} : { filename: uri }) };
  const base = uri?.slice(uri.lastIndexOf('/') + 1) || uri;
  const name = base === undefined || base === '' ? '' : ` ${base.slice(0, quotedLength)}`;
  return {
    type: 'text',
    text: `[resource${name} of type ${(mimeType ?? 'unknown').slice(0, quotedLength)} not shown]`,
  };
}
