/** A real MCP server built with the official SDK, for the agent's MCP tests: run it for stdio, or serve it over HTTP. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** A 1×1 transparent PNG. */
export const pixel =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** An empty zip archive (its end-of-central-directory record). */
export const zip = 'UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==';

/**
 * The test server: `add`, `divide` (isError on zero), `snapshot` (an image), `archive` (a zip
 * resource blob), `crash` (throws).
 */
export function createTestMcpServer(): McpServer {
  const server = new McpServer({ name: 'switchyard-test', version: '1.0.0' });
  server.registerTool(
    'add',
    { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool('divide', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) =>
    b === 0
      ? { content: [{ type: 'text', text: 'division by zero' }], isError: true }
      : { content: [{ type: 'text', text: String(a / b) }] },
  );
  server.registerTool('snapshot', { description: 'Take a picture' }, async () => ({
    content: [
      { type: 'text', text: 'here it is' },
      { type: 'image', data: pixel, mimeType: 'image/png' },
    ],
  }));
  server.registerTool('archive', { description: 'Fetch the archive' }, async () => ({
    content: [
      { type: 'text', text: 'here is the archive' },
      {
        type: 'resource',
        resource: { uri: 'file:///exports/x.zip', blob: zip, mimeType: 'application/zip' },
      },
    ],
  }));
  server.registerTool('crash', { description: 'Always fails' }, async () => {
    throw new Error('the server crashed on purpose');
  });
  return server;
}

/** Serves the test server over streamable HTTP (stateless) on 127.0.0.1; resolves its URL and a closer. */
export async function serveTestMcpOverHttp(): Promise<{ url: string; close(): Promise<void> }> {
  const http: Server = createServer(async (request, response) => {
    const server = createTestMcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

if (process.argv[2] === '--stdio') {
  await createTestMcpServer().connect(new StdioServerTransport());
}
