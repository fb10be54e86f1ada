/**
 * `npm run test:agents` (opt-in): the coding agents people use, unmodified, through the gateway.
 *
 * Installs `@anthropic-ai/claude-code` and `@openai/codex` on demand into a cache folder outside
 * node_modules (SWITCHYARD_AGENTS_CACHE, default ~/.cache/switchyard-agents), starts a gateway on
 * 127.0.0.1 whose upstreams are scripted fakes speaking the real wire protocols (encoded by the
 * production codecs), then runs:
 *   - Claude Code (`claude -p`), ANTHROPIC_BASE_URL at the gateway, an OpenAI Chat upstream: it must
 *     write a file with its Write tool;
 *   - Claude Code on an Anthropic upstream asked to search the web: it loads its deferred WebSearch
 *     through ToolSearch, and WebSearch's own request carries Anthropic's `web_search` server tool,
 *     which the upstream answers with `server_tool_use` and `web_search_tool_result` blocks: the
 *     answer must reach the user;
 *   - Codex (`codex exec`, a `wire_api = "responses"` provider), an Anthropic upstream: it must run a
 *     shell command;
 *   - Codex again with a model its catalog gives the freeform `apply_patch` (a `custom` tool, raw
 *     patch text held to a Lark grammar), the same upstream: it must create a file with the patch;
 *   - Codex in its code mode (a model whose catalog row says `code_mode_only`): every tool arrives in
 *     an `additional_tools` input item, and the model writes JavaScript for the freeform
 *     `functions.exec`, which calls `tools.apply_patch`: it must create a file so.
 * Prints one line per agent and exits 1 when either fails.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { codecs } from '../src/codecs/index.ts';
import { serializeFrame } from '../src/codecs/frames.ts';
import type { ProtocolName } from '../src/codecs/types.ts';
import type { StreamEvent } from '../src/core/events.ts';
import { createRequestId, type ToolCallId } from '../src/core/ids.ts';
import type { CanonicalResponse } from '../src/core/request.ts';
import type { Part } from '../src/core/transcript.ts';
import { createGateway } from '../src/gateway/server.ts';
import { safeToolName } from '../src/core/tool-names.ts';

const versions = { '@anthropic-ai/claude-code': '2.1.332', '@openai/codex': '0.171.0' };
const cache = process.env.SWITCHYARD_AGENTS_CACHE ?? join(homedir(), '.cache', 'switchyard-agents');
const bin = (name: string) => join(cache, 'node_modules', '.bin', name);

function ensureInstalled(): void {
  if (existsSync(bin('claude')) && existsSync(bin('codex'))) return;
  mkdirSync(cache, { recursive: true });
  if (!existsSync(join(cache, 'package.json')))
    writeFileSync(join(cache, 'package.json'), '{"private":true}\n');
  const specs = Object.entries(versions).map(([name, version]) => `${name}@${version}`);
  console.error(`test:agents: installing ${specs.join(', ')} into ${cache}`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--save-exact', ...specs], {
    cwd: cache,
    stdio: 'inherit',
  });
}

/** What a scripted upstream answers, given the decoded request: parts of the reply. */
type Policy = (request: ReturnType<(typeof codecs)[ProtocolName]['decodeRequest']>) => Part[];

function events(parts: Part[], provider: string): { list: StreamEvent[]; response: CanonicalResponse } {
  const response: CanonicalResponse = {
    requestId: createRequestId(),
    model: 'fake',
    provider,
    content: parts,
    finishReason: parts.some((part) => part.type === 'tool-call') ? 'tool-call' : 'completed',
    usage: { input: 50, cacheRead: 0, cacheWrite: 0, output: 10, reasoning: 0 },
    latencyMs: 0,
  };
  const list: StreamEvent[] = [
    { type: 'message-start', requestId: response.requestId, model: 'fake', provider },
  ];
  parts.forEach((part, index) => {
    if (part.type === 'text') {
      list.push(
        { type: 'text-start', index },
        { type: 'text-delta', index, delta: part.text },
        { type: 'text-end', index },
      );
    } else if (part.type === 'custom') {
      list.push({ type: 'custom', index, part });
    } else if (part.type === 'tool-call') {
      list.push({ type: 'tool-call-start', index, id: part.id, name: part.name });
      list.push({ type: 'tool-call-delta', index, id: part.id, delta: JSON.stringify(part.input) });
      list.push({ type: 'tool-call-end', index, id: part.id, input: part.input });
    }
  });
  list.push({ type: 'usage', usage: response.usage }, { type: 'finish', response });
  return { list, response };
}

/** A fake upstream speaking `protocol`, answering each request with `policy`. */
async function startUpstream(
  protocol: ProtocolName,
  policy: Policy,
  log: string[],
): Promise<{ url: string; server: Server }> {
  const codec = codecs[protocol];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        const decoded = codec.decodeRequest(body);
        const parts = policy(decoded);
        log.push(
          `${protocol} ← ${parts.map((part) => (part.type === 'tool-call' ? `tool ${part.name}` : part.type)).join(', ')}`,
        );
        const { list, response: reply } = events(parts, protocol);
        if (!decoded.stream) {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(codec.encodeResponse(reply, { model: decoded.model })));
          return;
        }
        const encoder = codec.createStreamEncoder({
          model: decoded.model,
          streamUsage: decoded.streamUsage === true,
        });
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const event of list)
          for (const frame of encoder.event(event)) response.write(serializeFrame(frame));
        response.end();
      } catch (error) {
        log.push(`${protocol} upstream could not answer: ${(error as Error).message}`);
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify(
            codec.encodeError({
              status: 400,
              errorClass: 'invalid_request',
              message: (error as Error).message,
            }).body,
          ),
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const answeredTool = (request: Parameters<Policy>[0]) => request.request.transcript.at(-1)?.kind === 'tool';
const hasTool = (request: Parameters<Policy>[0], name: string) =>
  request.request.tools?.some((tool) => tool.name === name) === true;
const call = (name: string, input: Record<string, unknown>): Part => ({
  type: 'tool-call',
  id: `tu_${Math.random().toString(36).slice(2, 12)}` as ToolCallId,
  name,
  input: input as never,
});

function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

async function main(): Promise<number> {
  ensureInstalled();
  const log: string[] = [];
  const work = mkdtempSync(join(tmpdir(), 'switchyard-agents-'));
  const target = join(work, 'claude', 'hello.txt');
  mkdirSync(join(work, 'claude'), { recursive: true });
  mkdirSync(join(work, 'codex'), { recursive: true });
  const chat = await startUpstream(
    'openai-chat',
    (request) => {
      if (answeredTool(request)) return [{ type: 'text', text: 'Done: hello.txt written.' }];
      if (hasTool(request, 'Write'))
        return [call('Write', { file_path: target, content: 'hello from the gateway\n' })];
      return [{ type: 'text', text: 'OK.' }];
    },
    log,
  );
  const shellCommand = 'echo hello-from-codex > out.txt';
  const searchId = 'srvtoolu_01Search';
  const searchAnswer: Part[] = [
    {
      type: 'custom',
      provider: 'anthropic',
      kind: 'server_tool_use',
      data: {
        type: 'server_tool_use',
        id: searchId,
        name: 'web_search',
        input: { query: 'weather in Paris' },
      },
    },
    {
      type: 'custom',
      provider: 'anthropic',
      kind: 'web_search_tool_result',
      data: {
        type: 'web_search_tool_result',
        tool_use_id: searchId,
        content: [
          {
            type: 'web_search_result',
            url: 'https://weather.example.com/paris',
            title: 'Paris weather',
            encrypted_content: 'EqgfCioIARgBIiQ3',
            page_age: null,
          },
        ],
      },
    },
    { type: 'text', text: 'Paris is sunny today, 21 °C.' },
  ];
  const patch = (file: string) =>
    `*** Begin Patch\n*** Add File: ${file}\n+hello-from-apply-patch\n*** End Patch\n`;
  const anthropic = await startUpstream(
    'anthropic-messages',
    (request) => {
      // Claude Code's WebSearch (a deferred tool, loaded through ToolSearch) runs its own request
      // with Anthropic's web_search server tool, answered as Anthropic answers it.
      if (request.serverTools?.some(({ type }) => type.startsWith('web_search')) === true)
        return searchAnswer;
      const said = JSON.stringify(request.request.transcript);
      if (said.includes('Search the web for the weather in Paris')) {
        if (said.includes('sunny')) return [{ type: 'text', text: 'Done: it is sunny in Paris.' }];
        if (hasTool(request, 'WebSearch')) return [call('WebSearch', { query: 'weather in Paris' })];
        if (hasTool(request, 'ToolSearch') && !answeredTool(request))
          return [call('ToolSearch', { query: 'select:WebSearch', max_results: 1 })];
      }
      if (answeredTool(request)) return [{ type: 'text', text: 'Done: the command ran.' }];
      const tools = request.request.tools?.map((tool) => tool.name) ?? [];
      // Freeform tools reach Anthropic as functions of one string `input`.
      const asked = JSON.stringify(request.request.transcript);
      if (asked.includes('patched.txt') && tools.includes('apply_patch'))
        return [call('apply_patch', { input: patch('patched.txt') })];
      const exec = safeToolName('functions.exec');
      if (asked.includes('scripted.txt') && tools.includes(exec))
        return [call(exec, { input: `await tools.apply_patch(${JSON.stringify(patch('scripted.txt'))});` })];
      if (tools.includes('shell')) return [call('shell', { command: ['bash', '-lc', shellCommand] })];
      if (tools.includes('shell_command')) return [call('shell_command', { command: shellCommand })];
      if (tools.includes('exec_command')) return [call('exec_command', { cmd: shellCommand })];
      return [{ type: 'text', text: `OK (tools: ${tools.join(', ')}).` }];
    },
    log,
  );
  const gateway = createGateway({
    accessLog: (line) =>
      log.push(
        `gateway ${String(line.protocol)} ${String(line.model)} → ${String(line.provider)} ${String(line.status)}${line.errorClass === null ? '' : ` ${String(line.errorClass)}`}`,
      ),
    config: {
      builtins: false,
      adapters: {
        openai: { type: 'openai', base_url: `${chat.url}/v1`, api_key: 'fake-upstream-key', max_retries: 0 },
        anthropic: {
          type: 'anthropic',
          base_url: `${anthropic.url}/v1`,
          api_key: 'fake-upstream-key',
          max_retries: 0,
        },
      },
      models: {
        'openai:gpt-5-mini': { aliases: ['sy-claude-code'] },
        // Codex 0.171's catalog: gpt-5.5 has the freeform apply_patch; gpt-5.6-terra is code_mode_only.
        'anthropic:claude-sonnet-4-5': {
          aliases: ['sy-codex', 'gpt-5.5', 'gpt-5.6-terra', 'claude-sonnet-4-5'],
        },
      },
    },
  });
  const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
  const results: string[] = [];
  try {
    const claude = await run(
      bin('claude'),
      [
        '-p',
        'Create the file hello.txt in the current directory with the Write tool.',
        '--allowedTools',
        'Write',
        '--permission-mode',
        'acceptEdits',
        '--model',
        'sy-claude-code',
      ],
      {
        cwd: join(work, 'claude'),
        env: {
          ...process.env,
          HOME: join(work, 'claude-home'),
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_API_KEY: 'gateway-client-key',
          ANTHROPIC_SMALL_FAST_MODEL: 'sy-claude-code',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
        },
      },
    );
    const written = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
    results.push(
      `claude -p: exit ${claude.code}, hello.txt ${written === 'hello from the gateway\n' ? 'written by the Write tool' : 'MISSING'}`,
    );
    if (written === undefined) results.push(claude.output.slice(-2000));
    // Claude Code's WebSearch on an Anthropic upstream: the web_search server tool through the gateway.
    const searched = await run(
      bin('claude'),
      [
        '-p',
        'Search the web for the weather in Paris.',
        '--allowedTools',
        'WebSearch',
        '--model',
        'claude-sonnet-4-5',
      ],
      {
        cwd: join(work, 'claude'),
        env: {
          ...process.env,
          HOME: join(work, 'claude-home'),
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_API_KEY: 'gateway-client-key',
          ANTHROPIC_SMALL_FAST_MODEL: 'claude-sonnet-4-5',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
        },
      },
    );
    const found = searched.output.includes('sunny');
    results.push(
      `claude -p (WebSearch): exit ${searched.code}, ${found ? 'answered from the web_search server tool' : 'MISSING'}`,
    );
    if (!found) results.push(searched.output.slice(-2000));
    const codexHome = join(work, 'codex-home');
    mkdirSync(codexHome, { recursive: true });
    const providerOf = (websockets: boolean) =>
      `{ name = "switchyard", base_url = "${server.url}/v1", wire_api = "responses", env_key = "SY_GATEWAY_KEY"${websockets ? ', supports_websockets = true' : ''} }`;
    /** `codex exec -m <model> <prompt>` through the gateway, in the codex work folder (over its Responses WebSocket with `websockets`). */
    const codexExec = (model: string, prompt: string, websockets = false) =>
      run(
        bin('codex'),
        [
          'exec',
          '--skip-git-repo-check',
          '--dangerously-bypass-approvals-and-sandbox',
          '-c',
          'model_provider="switchyard"',
          '-c',
          `model_providers.switchyard=${providerOf(websockets)}`,
          '-m',
          model,
          prompt,
        ],
        {
          cwd: join(work, 'codex'),
          env: { ...process.env, CODEX_HOME: codexHome, SY_GATEWAY_KEY: 'gateway-client-key' },
        },
      );
    const codex = await codexExec('sy-codex', 'Run the shell command that writes out.txt.');
    const out = join(work, 'codex', 'out.txt');
    const ran = existsSync(out) && readFileSync(out, 'utf8') === 'hello-from-codex\n';
    results.push(
      `codex exec: exit ${codex.code}, out.txt ${ran ? 'written by the shell command' : 'MISSING'}`,
    );
    if (!ran) results.push(codex.output.slice(-2000));
    // The same task with the provider's Responses WebSocket on (Codex warms it up, then streams each turn over it).
    rmSync(out, { force: true });
    const overSocket = await codexExec('sy-codex', 'Run the shell command that writes out.txt.', true);
    const ranOverSocket = existsSync(out) && readFileSync(out, 'utf8') === 'hello-from-codex\n';
    results.push(
      `codex exec (supports_websockets): exit ${overSocket.code}, out.txt ${ranOverSocket ? 'written by the shell command' : 'MISSING'}`,
    );
    if (!ranOverSocket) results.push(overSocket.output.slice(-2000));
    for (const [model, file, what] of [
      ['gpt-5.5', 'patched.txt', 'freeform apply_patch'],
      ['gpt-5.6-terra', 'scripted.txt', 'code mode: functions.exec runs tools.apply_patch'],
    ] as const) {
      const patchRun = await codexExec(model, `Create ${file} with the apply_patch tool.`);
      const created = join(work, 'codex', file);
      const applied = existsSync(created) && readFileSync(created, 'utf8') === 'hello-from-apply-patch\n';
      results.push(
        `codex exec (${what}): exit ${patchRun.code}, ${file} ${applied ? 'created by apply_patch' : 'MISSING'}`,
      );
      if (!applied) results.push(patchRun.output.slice(-2000));
    }
    console.log([...log, ...results].join('\n'));
    return results.every((line) => !line.includes('MISSING')) ? 0 : 1;
  } finally {
    await server.close(0);
    await gateway.switchyard.close();
    chat.server.close();
    anthropic.server.close();
  }
}

process.exitCode = await main();
