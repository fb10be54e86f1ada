/**
 * The chat's tools: the config's MCP servers connected, each tool asking for approval until the
 * user answers `[a]lways` for it — by the one name the model calls it, the question shows and the
 * session adds to the allowed set (an MCP name no provider takes, `files.read`, is offered under a
 * rewritten one, `sh_files_read_<hash>`; the server's own name is never compared).
 */
import type { McpToolSource } from '../../agent/mcp.ts';
import type { AnyAgentTool } from '../../agent/tool.ts';
import type { McpServerEntry } from '../../registry/config.ts';

/** `tool`, asking for approval unless its name is in `allowed`. */
export function askUnlessAllowed(tool: AnyAgentTool, allowed: ReadonlySet<string>): AnyAgentTool {
  return { ...tool, needsApproval: () => !allowed.has(tool.name) };
}

/** What `connectTools` reports: a server that failed (skipped), a tool left out (named as another). */
export interface ConnectReport {
  failed(name: string, error: unknown): void;
  warn(message: string): void;
}

/**
 * Connects `servers` (tools named `server_tool`); a server that fails is reported and skipped. Names
 * are one per tool: a server's second tool of a name (listed twice), and a
 * tool named as one of an earlier server's (`fs` + `x_read` and `fs_x` + `read` are both
 * `fs_x_read`), is left out with a warning naming both servers — never offered, since two of one
 * name would refuse every message. The set is fixed here: the chat lists no server again.
 */
export async function connectTools(
  servers: Record<string, McpServerEntry>,
  allowed: ReadonlySet<string>,
  report: ConnectReport,
): Promise<{ tools: AnyAgentTool[]; sources: McpToolSource[] }> {
  const entries = Object.entries(servers);
  if (entries.length === 0) return { tools: [], sources: [] };
  const { connectMcpTools } = await import('../../agent/mcp.ts');
  const sources: McpToolSource[] = [];
  const owners = new Map<string, string>();
  const tools: AnyAgentTool[] = [];
  for (const [name, entry] of entries) {
    let source: McpToolSource;
    try {
      const server =
        'command' in entry
          ? { transport: 'stdio' as const, ...entry, stderr: 'ignore' as const }
          : { transport: 'http' as const, ...entry };
      const logger = {
        warn: (_message: string, fields: Record<string, unknown>) =>
          report.warn(
            `MCP server ${name} lists two tools named ${String(fields.tool)}: the second is not offered`,
          ),
      };
      source = await connectMcpTools(server, { prefix: `${name}_`, timeoutMs: 60_000, logger });
    } catch (error) {
      report.failed(name, error);
      continue;
    }
    sources.push(source);
    for (const tool of source.tools as AnyAgentTool[]) {
      const owner = owners.get(tool.name);
      if (owner === undefined) {
        owners.set(tool.name, name);
        tools.push(askUnlessAllowed(tool, allowed));
      } else
        report.warn(
          `MCP servers ${owner} and ${name} both have a tool named ${tool.name}: ${name}'s is not offered`,
        );
    }
  }
  return { tools, sources };
}
