/**
 * A minimal stdio MCP server (raw JSON-RPC, no SDK) whose `tools/list` is exactly the names in its
 * arguments, duplicates kept — what the SDK's server refuses to serve, and a hostile one sends.
 * Every call answers `ok`. Run: `node mcp-listing-server.ts lookup lookup`.
 */
import readline from 'node:readline';

const names = process.argv.slice(2);
const send = (message: object) => process.stdout.write(`${JSON.stringify(message)}\n`);
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line) as { id?: number; method: string; params?: { protocolVersion?: string } };
  if (message.id === undefined) return;
  const reply = (result: object) => send({ jsonrpc: '2.0', id: message.id, result });
  if (message.method === 'initialize')
    reply({
      protocolVersion: message.params?.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'listing', version: '1' },
    });
  else if (message.method === 'tools/list')
    reply({
      tools: names.map((name, index) => ({
        name,
        description: `tool ${index}`,
        inputSchema: { type: 'object', properties: {} },
      })),
    });
  else if (message.method === 'tools/call') reply({ content: [{ type: 'text', text: 'ok' }] });
  else send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'no such method' } });
});
