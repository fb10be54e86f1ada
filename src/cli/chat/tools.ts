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

/** Connects `servers` (tools named `server_tool`); a server that fails is passed to `failed` and skipped. */
export async function connectTools(
  servers: Record<string, McpServerEntry>,
  allowed: ReadonlySet<string>,
  failed: (name: string, error: unknown) => void,
): Promise<{ tools: AnyAgentTool[]; sources: McpToolSource[] }> {
  const entries = Object.entries(servers);
  if (entries.length === 0) return { tools: [], sources: [] };
  const { connectMcpTools } = await import('../../agent/mcp.ts');
  const sources: McpToolSource[] = [];
  for (const [name, entry] of entries) {
    try {
      const server =
        'command' in entry
          ? { transport: 'stdio' as const, ...entry, stderr: 'ignore' as const }
          : { transport: 'http' as const, ...entry };
      sources.push(await connectMcpTools(server, { prefix: `${name}_`, timeoutMs: 60_000 }));
    } catch (error) {
      failed(name, error);
    }
  }
  const tools = sources.flatMap((source) => source.tools as AnyAgentTool[]);
  return { tools: tools.map((tool) => askUnlessAllowed(tool, allowed)), sources };
}
