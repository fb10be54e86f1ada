/**
 * The process's registry of exact secrets (src/core/redaction.ts): a secret still configured is
 * never forgotten, however many rotating credentials (Bedrock STS sessions, Vertex access tokens)
 * are registered after it, while the rotating ones stay bounded. Before, one list of 256 forgot the
 * oldest first: after 260 Vertex tokens or 90 Bedrock credential rotations, a proxy token an
 * OpenAI adapter was configured with came back verbatim in its upstream's echo.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.ts';
import { redactSecrets, registerSecrets } from '../../src/core/redaction.ts';
import { userText } from '../../src/core/transcript.ts';
import { createBedrock } from '../../src/providers/bedrock/index.ts';
import { createOpenAI } from '../../src/providers/openai-chat/index.ts';
import { createVertex } from '../../src/providers/vertex/index.ts';

/** Answers like each upstream: the OpenAI and Vertex echo paths fail with the header they were sent. */
function answer(request: IncomingMessage): { status: number; body: unknown } {
  const url = request.url ?? '';
  if (url.startsWith('/v1/chat/completions'))
    return {
      status: 400,
      body: { error: { message: `bad proxy token ${request.headers['x-proxy-token']}`, type: 'invalid' } },
    };
  if (url.startsWith('/echo/'))
    return {
      status: 400,
      body: {
        error: { code: 400, status: 'INVALID_ARGUMENT', message: `echo: ${request.headers.authorization}` },
      },
    };
  if (url.includes(':generateContent'))
    return {
      status: 200,
      body: {
        candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1 },
      },
    };
  return {
    status: 200,
    body: {
      output: { message: { role: 'assistant', content: [{ text: 'Hi' }] } },
      stopReason: 'end_turn',
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    },
  };
}

let server: Server;
let baseURL: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    const { status, body } = answer(request);
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const hi = (model: string) => ({ model, transcript: [userText('hi')], maxOutputTokens: 8 });

/** An OpenAI adapter configured with a secret header its upstream echoes back in a 400. */
function proxied(token: string) {
  return createOpenAI({
    baseURL: `${baseURL}/v1`,
    apiKey: 'local-key-0001',
    headers: { 'x-proxy-token': token },
    maxRetries: 0,
    env: {},
    logger: silentLogger,
  });
}

async function failureText(call: Promise<unknown>): Promise<string> {
  const error = (await call.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as Error | undefined;
  expect(error).toBeInstanceOf(Error);
  return `${error!.message}\n${JSON.stringify(error)}`;
}

describe('a configured secret is never pushed out by rotating credentials', () => {
  it('a secret header stays redacted after 260 Vertex access tokens', async () => {
    const token = 'proxyTOKENvertex0001';
    const openai = proxied(token);
    expect(await failureText(openai.complete(hi('openai:gpt-4.1')))).toContain('bad proxy token [REDACTED]');
    let minted = 0;
    const vertex = createVertex({
      baseURL,
      project: 'proj',
      location: 'us-central1',
      getAccessToken: async () => `ya29.rotated-token-${++minted}-xxxxxxxx`,
      maxRetries: 0,
      env: {},
      logger: silentLogger,
    });
    for (let call = 0; call < 260; call++) await vertex.complete(hi('vertex:gemini-2.5-flash'));
    expect(minted).toBe(260);
    const text = await failureText(openai.complete(hi('openai:gpt-4.1')));
    expect(text).toContain('bad proxy token [REDACTED]');
    expect(text).not.toContain(token);
    await Promise.all([openai.close(), vertex.close()]);
  });

  it('a secret header stays redacted after 90 Bedrock credential rotations (3 secrets each)', async () => {
    const token = 'proxyTOKENbedrock0001';
    const openai = proxied(token);
    let rotations = 0;
    const bedrock = createBedrock({
      baseURL,
      region: 'us-east-1',
      credentials: async () => {
        rotations++;
        return {
          accessKeyId: `ASIAROTATED${String(rotations).padStart(6, '0')}`,
          secretAccessKey: `rotatedSecret${rotations}xxxxxxxx`,
          sessionToken: `IQoJrotatedSession${rotations}xxxxxxxx`,
        };
      },
      maxRetries: 0,
      env: {},
      logger: silentLogger,
    });
    for (let call = 0; call < 90; call++)
      await bedrock.complete(hi('bedrock:anthropic.claude-3-haiku-20240307-v1:0'));
    expect(rotations).toBe(90);
    const text = await failureText(openai.complete(hi('openai:gpt-4.1')));
    expect(text).toContain('bad proxy token [REDACTED]');
    expect(text).not.toContain(token);
    await Promise.all([openai.close(), bedrock.close()]);
  });
});

describe('rotating credentials stay bounded, the ones in use kept', () => {
  it('the least recently registered is forgotten past 256; one registered again is kept', () => {
    const old = 'rotating-credential-old-0001';
    const reused = 'rotating-credential-reused-0001';
    registerSecrets([old, reused]);
    for (let index = 0; index < 300; index++) {
      registerSecrets([`rotating-credential-filler-${index}`]);
      if (index % 100 === 0) registerSecrets([reused]);
    }
    expect(redactSecrets(`a ${old}`)).toBe(`a ${old}`);
    expect(redactSecrets(`a ${reused}`)).toBe('a [REDACTED]');
  });

  it('a cached Vertex token is still redacted after 300 other rotating credentials', async () => {
    const token = 'ya29.cached-token-kept-0001';
    let fetched = 0;
    const vertex = createVertex({
      baseURL: `${baseURL}/echo`,
      project: 'proj',
      location: 'us-central1',
      getAccessToken: async () => {
        fetched++;
        return { token, expiresAt: Date.now() + 3_600_000 };
      },
      maxRetries: 0,
      env: {},
      logger: silentLogger,
    });
    expect(await failureText(vertex.complete(hi('vertex:gemini-2.5-flash')))).toContain(
      'echo: Bearer [REDACTED]',
    );
    registerSecrets(Array.from({ length: 300 }, (_, index) => `other-rotating-credential-${index}`));
    const text = await failureText(vertex.complete(hi('vertex:gemini-2.5-flash')));
    expect(fetched).toBe(1);
    expect(text).toContain('echo: Bearer [REDACTED]');
    expect(text).not.toContain(token);
    await vertex.close();
  });
});

describe('configured secrets do not outlive what holds them', () => {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;

  it("an adapter that is dropped and collected releases its secrets; a live one's stay", async () => {
    const dropped = 'dropped-adapter-secret-0001';
    const kept = 'kept-adapter-secret-0001';
    const live = proxied(kept);
    (() => {
      proxied(dropped);
    })();
    expect(redactSecrets(`x ${dropped}`)).toBe('x [REDACTED]');
    for (let round = 0; round < 50 && redactSecrets(`x ${dropped}`) !== `x ${dropped}`; round++) {
      collect();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(redactSecrets(`x ${dropped}`)).toBe(`x ${dropped}`);
    expect(redactSecrets(`x ${kept}`)).toBe('x [REDACTED]');
    await live.close();
  });

  it('a Bedrock adapter dropped during its call keeps its key redacted in that call’s error', async () => {
    const key = 'bedrock-dropped-key-0001xyz';
    let answer: () => void = () => {};
    let held: Server | undefined;
    const arrived = new Promise<void>((resolve) => {
      held = createServer((request, response) => {
        request.resume();
        const echoed = String(request.headers.authorization);
        answer = () => {
          response.writeHead(400, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ message: `bad key ${echoed}` }));
        };
        resolve();
      });
    });
    await new Promise<void>((resolve) => held!.listen(0, '127.0.0.1', resolve));
    try {
      const port = (held!.address() as AddressInfo).port;
      // The adapter is reachable only from this closure: the call alone holds what it uses.
      const call = (() =>
        createBedrock({
          apiKey: key,
          region: 'us-east-1',
          baseURL: `http://127.0.0.1:${port}`,
          maxRetries: 0,
          env: {},
          logger: silentLogger,
        }).complete(hi('bedrock:anthropic.claude-3-haiku-20240307-v1:0')))();
      await arrived;
      for (let round = 0; round < 5; round++) {
        collect();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      answer();
      const text = await failureText(call);
      expect(text).toContain('bad key Bearer [REDACTED]');
      expect(text).not.toContain(key);
    } finally {
      held!.closeAllConnections();
      await new Promise<void>((resolve) => held!.close(() => resolve()));
    }
  });
});
