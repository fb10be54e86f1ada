import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { redactSecrets } from '../core/redaction.ts';
import { repoRoot } from '../../test/support/fixtures.ts';
import { pixel, serveTestMcpOverHttp } from '../../test/support/mcp-server.ts';
import { createScriptedAdapter } from '../testing/scripted-adapter.ts';
import { startEmulatedSwitchyard } from '../../test/support/emulated.ts';
import { createAgent } from './agent.ts';
import { connectMcpTools, convertResult, type McpServerConfig, type McpToolSource } from './mcp.ts';
import { call, expectConsistent, resultsById, resultText, text } from './test-support.ts';

let http: Awaited<ReturnType<typeof serveTestMcpOverHttp>>;
beforeAll(async () => {
  http = await serveTestMcpOverHttp();
});
afterAll(async () => {
  await http.close();
});

const transports: Array<[string, () => McpServerConfig]> = [
  [
    'stdio (child process)',
    () => ({
      transport: 'stdio',
      command: process.execPath,
      args: [join(repoRoot, 'test/support/mcp-server.ts'), '--stdio'],
      stderr: 'ignore',
    }),
  ],
  ['streamable HTTP (loopback)', () => ({ transport: 'http', url: http.url })],
];

describe.each(transports)('MCP tools over %s', (_name, config) => {
  let source: McpToolSource;
  beforeAll(async () => {
    source = await connectMcpTools(config(), { prefix: 'calc_', timeoutMs: 5_000 });
  });
  afterAll(async () => {
    await source.close();
  });

  it('lists the server’s tools with their JSON Schemas', () => {
    expect(source.tools.map((tool) => tool.name)).toEqual([
      'calc_add',
      'calc_divide',
      'calc_snapshot',
      'calc_archive',
      'calc_crash',
    ]);
    expect(source.tools[0]?.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
  });

  it('calls them like local tools; server errors, thrown failures and bad input become error results', async () => {
    const adapter = createScriptedAdapter([
      {
        content: [
          call('add', 'calc_add', { a: 2, b: 40 }),
          call('zero', 'calc_divide', { a: 1, b: 0 }),
          call('crash', 'calc_crash', {}),
          call('bad', 'calc_add', { a: 'two' }),
          call('snap', 'calc_snapshot', {}),
        ],
      },
      { content: [text('done')] },
    ]);
    const result = await createAgent({ client: adapter, model: 'scripted:m', tools: source.tools })
      .run('go')
      .result();
    const results = resultsById(result.transcript);
    expect(results.get('add')).toMatchObject({ isError: false, output: { type: 'text', text: '42' } });
    expect(results.get('zero')).toMatchObject({
      isError: true,
      output: { type: 'text', text: 'division by zero' },
    });
    expect(results.get('crash')?.isError).toBe(true);
    expect(resultText(results.get('crash'))).toContain('the server crashed on purpose');
    expect(results.get('bad')?.isError).toBe(true);
    expect(resultText(results.get('bad'))).toContain('Invalid input for tool "calc_add"');
    expect(results.get('snap')?.output).toEqual({
      type: 'parts',
      parts: [
        { type: 'text', text: 'here it is' },
        { type: 'media', modality: 'image', mimeType: 'image/png', data: { type: 'base64', data: pixel } },
      ],
    });
    expectConsistent(result.transcript);
  });
});

describe('MCP approvals', () => {
  it('applies the approval rule by tool name and input', async () => {
    const source = await connectMcpTools(
      { transport: 'http', url: http.url },
      { needsApproval: (name, input) => name === 'divide' && input.b === 0 },
    );
    try {
      const adapter = createScriptedAdapter([
        { content: [call('ok', 'divide', { a: 4, b: 2 }), call('risky', 'divide', { a: 1, b: 0 })] },
      ]);
      const result = await createAgent({ client: adapter, model: 'scripted:m', tools: source.tools })
        .run('go')
        .result();
      expect(result.outcome).toBe('awaiting_approval');
      expect(result.pendingApprovals?.map((pending) => pending.callId)).toEqual(['risky']);
      expect(resultText(result.state?.results[0])).toBe('2');
    } finally {
      await source.close();
    }
  });
});

it('an MCP tool name no provider takes (`calc.add`) is offered under a safe name; the server is still called by its own', async () => {
  const source = await connectMcpTools(
    { transport: 'http', url: http.url },
    { prefix: 'calc.', timeoutMs: 5_000 },
  );
  try {
    const names = source.tools.map((tool) => tool.name);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/);
    const add = names.find((name) => name.startsWith('calc_add_'))!;
    const adapter = createScriptedAdapter([
      { content: [call('add', add, { a: 2, b: 40 })] },
      { content: [text('done')] },
    ]);
    const result = await createAgent({ client: adapter, model: 'scripted:m', tools: source.tools })
      .run('add')
      .result();
    expect(resultText(resultsById(result.transcript).get('add'))).toBe('42');
  } finally {
    await source.close();
  }
});

it.each([['text/html'], ['image/svg+xml'], ['image/tiff'], [undefined], ['audio/wav']])(
  'an MCP image of type %s a model may refuse becomes a note, never a part that fails every later call',
  (mimeType) => {
    const output = convertResult({
      content: [
        { type: 'text', text: 'here' },
        { type: 'image', data: 'AAAA', ...(mimeType === undefined ? {} : { mimeType }) },
      ],
    });
    expect(output).toMatchObject({
      type: 'parts',
      parts: [
        { type: 'text', text: 'here' },
        { type: 'text', text: `[image of type ${mimeType ?? 'unknown'} not shown]` },
      ],
    });
  },
);

it.each([['audio/wav'], ['audio/mpeg'], ['audio/mp3']])(
  'MCP audio of type %s (a block or a resource blob) becomes a note: Claude and others refuse audio',
  (mimeType) => {
    const output = convertResult({
      content: [
        { type: 'audio', data: 'AAAA', mimeType },
        { type: 'resource', resource: { uri: 'file:///clips/a', blob: 'AAAA', mimeType } },
      ],
    });
    expect(output).toEqual({
      type: 'parts',
      parts: [
        { type: 'text', text: `[audio of type ${mimeType} not shown]` },
        { type: 'text', text: `[resource a of type ${mimeType} not shown]` },
      ],
    });
  },
);

it.each([
  ['application/zip', 'file:///exports/x.zip', '[resource x.zip of type application/zip not shown]'],
  [
    'application/octet-stream',
    'file:///x.bin',
    '[resource x.bin of type application/octet-stream not shown]',
  ],
  [undefined, 'file:///data/', '[resource file:///data/ of type unknown not shown]'],
  ['image/svg+xml', undefined, '[resource of type image/svg+xml not shown]'],
])('an MCP resource blob of type %s no model may take becomes a note', (mimeType, uri, note) => {
  const resource = { blob: 'AAAA', ...(mimeType === undefined ? {} : { mimeType }), ...(uri ? { uri } : {}) };
  expect(convertResult({ content: [{ type: 'resource', resource }] })).toEqual({
    type: 'parts',
    parts: [{ type: 'text', text: note }],
  });
});

it('an MCP resource blob every model takes stays a part: PDF and text as files, an image as an image', () => {
  const blob = (mimeType: string) => ({
    type: 'resource',
    resource: { uri: 'file:///r', blob: 'AAAA', mimeType },
  });
  const data = { type: 'base64', data: 'AAAA' };
  expect(
    convertResult({
      content: [blob('application/pdf'), blob('text/plain; charset=utf-8'), blob('IMAGE/PNG')],
    }),
  ).toEqual({
    type: 'parts',
    parts: [
      { type: 'file', mimeType: 'application/pdf', data, filename: 'file:///r' },
      { type: 'file', mimeType: 'text/plain', data, filename: 'file:///r' },
      { type: 'media', modality: 'image', mimeType: 'image/png', data },
    ],
  });
});

it('an MCP zip blob over the front door: the run completes, and continues on another provider', async () => {
  const {
    emulator,
    switchyard: sy,
    close,
  } = await startEmulatedSwitchyard({
    adapters: { anthropic: 'anthropic', openai: 'openai' },
    apiKey: 'test-key-mcp',
    config: { models: { 'anthropic:claude-sonnet-4-5': null, 'openai:gpt-4.1-mini': null } },
  });
  const source = await connectMcpTools({ transport: 'http', url: http.url });
  try {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'tool-call', name: 'archive', input: {} }] });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'done' }] });
    const agent = createAgent({ client: sy, model: 'anthropic:claude-sonnet-4-5', tools: source.tools });
    const run = await agent.run('fetch the archive').result();
    expect(run.outcome).toBe('completed');
    expect([...resultsById(run.transcript).values()].map((result) => result.output)).toEqual([
      {
        type: 'parts',
        parts: [
          { type: 'text', text: 'here is the archive' },
          { type: 'text', text: '[resource x.zip of type application/zip not shown]' },
        ],
      },
    ]);
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'again' }] });
    const next = createAgent({ client: sy, model: 'openai:gpt-4.1-mini' }).run('next', { continues: run });
    expect(await next.result()).toMatchObject({ outcome: 'completed', text: 'again' });
  } finally {
    await source.close();
    await close();
  }
});

it('an MCP PNG image stays an image', () => {
  expect(convertResult({ content: [{ type: 'image', data: 'AAAA', mimeType: 'IMAGE/PNG' }] })).toMatchObject({
    type: 'parts',
    parts: [{ type: 'media', modality: 'image', mimeType: 'image/png' }],
  });
});

describe('an MCP server that cannot be reached', () => {
  async function serve(handler: RequestListener) {
    const server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
  }

  it('a server that never answers: connecting ends within timeoutMs, a retryable mcp_unavailable', async () => {
    const { url, server } = await serve(() => {});
    const started = performance.now();
    const error = await connectMcpTools({ transport: 'http', url }, { timeoutMs: 300 }).catch(
      (caught: unknown) => caught,
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(error).toMatchObject({
      errorClass: 'server_error',
      providerCode: 'mcp_unavailable',
      retryable: true,
    });
    server.closeAllConnections();
    server.close();
  });

  it('a server answering 500 with a secret in its body: classified, the secret not repeated', async () => {
    const { url, server } = await serve((_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end('internal: token=sk-proj-SECRETSECRETSECRET0123456789');
    });
    const error = (await connectMcpTools({ transport: 'http', url }, { timeoutMs: 2_000 }).catch(
      (caught: unknown) => caught,
    )) as Error;
    expect(error).toMatchObject({ errorClass: 'server_error', providerCode: 'mcp_unavailable' });
    expect(error.message).not.toContain('SECRETSECRET');
    server.close();
  });

  it.each([
    ['a header', (url: string, token: string) => ({ url, headers: { Authorization: `Bearer ${token}` } })],
    ['the URL query', (url: string, token: string) => ({ url: `${url}?token=${token}` })],
    ['the URL query (api_key)', (url: string, token: string) => ({ url: `${url}?api_key=${token}` })],
  ])('a token configured in %s and echoed back is not in the connect error', async (where, configure) => {
    const token = `mcptoken_${where.length}Zq83hXk2LmP09aaB77`;
    const { url, server } = await serve((request, response) => {
      request.resume();
      const echoed = new URL(request.url!, 'http://host').searchParams;
      response.writeHead(401, { 'content-type': 'text/plain' });
      response.end(
        `unauthorized: ${request.headers.authorization} ${echoed.get('token')} ${echoed.get('api_key')} ${request.url}`,
      );
    });
    const error = (await connectMcpTools(
      { transport: 'http', ...configure(url, token) },
      { timeoutMs: 2_000 },
    ).catch((caught: unknown) => caught)) as Error;
    expect(error).toMatchObject({ errorClass: 'server_error', providerCode: 'mcp_unavailable' });
    expect(error.message).toContain('unauthorized');
    expect(error.message).not.toContain(token);
    expect(String((error.cause as Error).message)).not.toContain(token);
    server.closeAllConnections();
    server.close();
  });
});

it('a stdio server’s env: credential values are registered whole, GIT_AUTHOR_* and last words are not', async () => {
  const env = {
    GIT_AUTHOR_NAME: 'Jane Developer',
    GIT_AUTHOR_EMAIL: 'jane.doe@example.com',
    GIT_COMMITTER_EMAIL: 'jane.committer@example.com',
    SERVICE_API_TOKEN: 'svc-token-Zq83hXk2LmP09',
    HTTP_AUTHORIZATION: 'Basic YWxhZGRpbjpvcGVuc2VzYW1l',
    DB_PASSWORD: 'correct horse battery passphrase',
  };
  await connectMcpTools(
    { transport: 'stdio', command: process.execPath, args: ['-e', 'process.exit(1)'], stderr: 'ignore', env },
    { timeoutMs: 3_000 },
  ).catch(() => {});
  const line = Object.values(env).join(' | ');
  expect(redactSecrets(line)).toBe(
    'Jane Developer | jane.doe@example.com | jane.committer@example.com | [REDACTED] | [REDACTED] | [REDACTED]',
  );
  expect(redactSecrets('a passphrase and YWxhZGRpbjpvcGVuc2VzYW1l alone')).toBe(
    'a passphrase and YWxhZGRpbjpvcGVuc2VzYW1l alone',
  );
});

it('an MCP approval rule is asked with the server’s own (prefixed) name, not the safe one the model sees', async () => {
  const asked: string[] = [];
  const source = await connectMcpTools(
    { transport: 'http', url: http.url },
    {
      prefix: 'calc.',
      timeoutMs: 5_000,
      needsApproval: (name) => {
        asked.push(name);
        return name === 'calc.add';
      },
    },
  );
  try {
    const add = source.tools.find((tool) => tool.name.startsWith('calc_add_'))!;
    const adapter = createScriptedAdapter([{ content: [call('add', add.name, { a: 2, b: 40 })] }]);
    const result = await createAgent({ client: adapter, model: 'scripted:m', tools: source.tools })
      .run('add')
      .result();
    expect(asked).toEqual(['calc.add']);
    expect(result.outcome).toBe('awaiting_approval');
  } finally {
    await source.close();
  }
});

it('a listing that names one tool twice: the first is kept, the later left out with a WARN, on every re-listing too', async () => {
  const schema = { type: 'object', properties: {} };
  let listing = [
    { name: 'lookup', description: 'a', inputSchema: schema },
    { name: 'lookup', description: 'b', inputSchema: schema },
  ];
  const client = {
    listTools: async () => ({ tools: listing }),
    callTool: async (params: { name: string }) => ({
      content: [{ type: 'text', text: `called ${params.name}` }],
    }),
    close: async () => {},
  };
  const logger = createMemoryLogger();
  const source = await connectMcpTools({ client }, { prefix: 'notes_', logger });
  expect(source.tools.map((tool) => [tool.name, tool.description])).toEqual([['notes_lookup', 'a']]);
  expect(logger.entries).toEqual([
    {
      message: 'mcp: two tools of the server are named notes_lookup; the later one is left out',
      fields: { tool: 'notes_lookup', kept: 'lookup', leftOut: 'lookup' },
    },
  ]);
  // An agent over them runs (two of one name would refuse every run).
  const adapter = createScriptedAdapter([{ content: [text('hi')] }]);
  const run = createAgent({ client: adapter, model: 'scripted:m', tools: source.tools }).run('go');
  expect((await run.result()).outcome).toBe('completed');

  // After a tools/list_changed, the new listing is checked again.
  listing = [
    { name: 'lookup', description: 'a', inputSchema: schema },
    { name: 'a', description: 'first', inputSchema: schema },
    { name: 'a', description: 'second', inputSchema: schema },
  ];
  const tools = await source.refresh();
  expect(tools.map((tool) => [tool.name, tool.description])).toEqual([
    ['notes_lookup', 'a'],
    ['notes_a', 'first'],
  ]);
  expect(logger.entries.at(-1)?.fields).toEqual({ tool: 'notes_a', kept: 'a', leftOut: 'a' });
});

it('an HTTP server’s header secret stays redacted while its tools live, the source and config dropped', async () => {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  const token = 'mcp-kept-by-tools-Zq83hXk2LmP09';
  // Only the tools are kept (`const { tools } = await connectMcpTools(…)`): they hold the client.
  const tools = await (async () =>
    (
      await connectMcpTools(
        { transport: 'http', url: http.url, headers: { Authorization: `Bearer ${token}` } },
        { timeoutMs: 5_000 },
      )
    ).tools)();
  for (let round = 0; round < 10; round++) {
    collect();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(tools.length).toBeGreaterThan(0);
  expect(redactSecrets(`echo: ${token}`)).toBe('echo: [REDACTED]');
});
