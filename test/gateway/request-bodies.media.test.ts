/**
 * Media in request bodies: a media type the upstream does not take (named by the client's field),
 * where a client's media may point, and media inside a Gemini functionResponse.
 */
import { describe, expect, it } from 'vitest';
import { createEmulatedGateway } from '../support/emulated.ts';
import { scriptedText, useGatewayHarness } from './harness.ts';

const harness = useGatewayHarness({ body_limit_bytes: 4096 });
const hello = scriptedText;

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  harness.post(path, body, headers);

describe('a media type the upstream does not take', () => {
  const text = Buffer.from('plain words').toString('base64');
  it.each([
    [
      '/v1/messages',
      {
        model: 'up-chat',
        max_tokens: 64,
        messages: [
          { role: 'user', content: 'Read it' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'fetch', input: {} }] },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_1',
                content: [
                  { type: 'text', text: 'here' },
                  { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
                ],
              },
            ],
          },
        ],
      },
      'messages.2.content.0.content.1',
    ],
    [
      '/v1/messages',
      {
        model: 'up-chat',
        max_tokens: 64,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'read' },
              // Text documents reach OpenAI (as text to Chat, as a file to Responses); a zip does not.
              { type: 'document', source: { type: 'base64', media_type: 'application/zip', data: text } },
            ],
          },
        ],
      },
      'messages.0.content.1',
    ],
    [
      '/v1/chat/completions',
      {
        model: 'up-responses',
        messages: [
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'ok' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'read' },
              { type: 'file', file: { filename: 'a.zip', file_data: `data:application/zip;base64,${text}` } },
            ],
          },
        ],
      },
      'messages.2.content.1',
    ],
    [
      '/v1/messages',
      {
        model: 'up-chat',
        max_tokens: 64,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'read' },
              { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
            ],
          },
        ],
      },
      'messages.0.content.1',
    ],
    [
      '/v1beta/models/up-chat:generateContent',
      {
        contents: [
          {
            role: 'user',
            parts: [
              { text: 'read' },
              { fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/a.pdf' } },
            ],
          },
        ],
      },
      'contents.0.parts.1',
    ],
    [
      '/v1beta/models/up-chat:generateContent',
      {
        contents: [
          {
            role: 'user',
            parts: [{ text: 'read' }, { inlineData: { mimeType: 'application/zip', data: text } }],
          },
        ],
      },
      'contents.0.parts.1',
    ],
    [
      '/v1/chat/completions',
      {
        model: 'up-anthropic',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'listen' },
              { type: 'input_audio', input_audio: { data: text, format: 'wav' } },
            ],
          },
        ],
      },
      'messages.0.content.1',
    ],
    [
      '/v1beta/models/up-responses:generateContent',
      {
        contents: [
          { role: 'user', parts: [{ text: 'hi' }] },
          { role: 'model', parts: [{ text: 'yes' }] },
          {
            role: 'user',
            parts: [{ text: 'listen' }, { inlineData: { mimeType: 'audio/wav', data: text } }],
          },
        ],
      },
      'contents.2.parts.1',
    ],
  ])("%s (row %#): the 400 names the client's own field, not a canonical path", async (path, body, field) => {
    const before = harness.emulator.requests.length;
    const response = await post(path, JSON.stringify(body));
    expect(response.status).toBe(400);
    const answer = JSON.stringify(await response.json());
    expect(answer).toContain(field);
    // The OpenAI protocols' error bodies have a field for it (Anthropic's and Gemini's do not).
    if (path.startsWith('/v1/chat') || path.startsWith('/v1/responses'))
      expect(answer).toContain(`"param":"${field}"`);
    expect(answer).not.toContain('transcript[');
    expect(harness.emulator.requests.length).toBe(before);
  });
});

describe('where a client’s media may point', () => {
  const media = (data: Record<string, unknown>) => ({
    model: 'up-chat',
    transcript: [
      {
        kind: 'user',
        parts: [
          { type: 'text', text: 'look' },
          { type: 'media', modality: 'image', mimeType: 'image/png', data },
        ],
      },
    ],
  });
  /** A native request for the Gemini upstream with one Gemini part given as it is (`custom`). */
  const geminiPart = (data: Record<string, unknown>) => ({
    model: 'up-gemini',
    transcript: [
      {
        kind: 'user',
        parts: [
          { type: 'text', text: 'look' },
          { type: 'custom', provider: 'gemini', kind: 'part', data },
        ],
      },
    ],
  });
  const rows: Array<[string, string, Record<string, unknown>]> = [
    [
      'an Anthropic image by an s3:// URL',
      '/v1/messages',
      {
        model: 'up-anthropic',
        max_tokens: 10,
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { type: 'url', url: 's3://operator-bucket/a.png' } }],
          },
        ],
      },
    ],
    [
      'an Anthropic document in a tool result by a file: URL',
      '/v1/messages',
      {
        model: 'up-chat',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'read it' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'fetch', input: {} }] },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_1',
                content: [{ type: 'document', source: { type: 'url', url: 'file:///etc/passwd' } }],
              },
            ],
          },
        ],
        tools: [{ name: 'fetch', input_schema: { type: 'object' } }],
      },
    ],
    [
      'a Gemini fileData by a gs:// URI',
      '/v1beta/models/up-chat:generateContent',
      {
        contents: [
          { role: 'user', parts: [{ fileData: { mimeType: 'application/pdf', fileUri: 'gs://b/x.pdf' } }] },
        ],
      },
    ],
    [
      'a native media URI with gopher:',
      '/switchyard/v1/stream',
      media({ type: 'uri', uri: 'gopher://127.0.0.1:6379/_x' }),
    ],
    [
      'a native media URI without a scheme',
      '/switchyard/v1/stream',
      media({ type: 'uri', uri: '/etc/passwd' }),
    ],
    ['a native media handle', '/switchyard/v1/stream', media({ type: 'handle', handle: 'artifact-1' })],
    [
      'a native provider part (custom) holding a gs:// fileData',
      '/switchyard/v1/stream',
      geminiPart({ fileData: { mimeType: 'application/pdf', fileUri: 'gs://operator-bucket/x.pdf' } }),
    ],
    [
      'a native provider part (custom) holding a file:/ URI',
      '/switchyard/v1/stream',
      geminiPart({ fileData: { mimeType: 'text/plain', fileUri: 'file:/etc/passwd' } }),
    ],
  ];

  it.each(rows)('%s is a 400 and nothing reaches the upstream', async (_, path, body) => {
    const before = harness.emulator.requests.length;
    const response = await post(path, JSON.stringify(body));
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(
      /media or file (URI must be http, https, data|handle is not accepted)|a URI in a provider part must be http, https, data/,
    );
    expect(harness.emulator.requests.length).toBe(before);
  });

  it('text in a provider part that only begins like a scheme (`file: notes`), or an https URL, is no refused URI', async () => {
    harness.emulator.enqueue(hello('Read.'));
    const text = 'file: notes.txt, see https://example.com/a';
    const response = await post('/switchyard/v1/stream', JSON.stringify(geminiPart({ text })));
    expect(response.status).toBe(200);
    await response.text();
    expect(JSON.stringify(harness.emulator.requests.at(-1)!.body)).toContain(text);
  });

  it('a scheme the operator allows (gateway.media_uri_schemes) reaches the upstream as written', async () => {
    const gateway = createEmulatedGateway(harness.emulator.url, {
      logger: { warn: () => {} },
      adapters: { gemini: 'gemini' },
      apiKey: 'k',
      config: {
        models: { 'gemini:gemini-2.5-flash': { aliases: ['media-gemini'] } },
        gateway: { media_uri_schemes: ['GS'] },
      },
    });
    const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
    try {
      harness.emulator.enqueue(hello('Read.'));
      const response = await fetch(`${server.url}/v1beta/models/media-gemini:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          contents: [
            { role: 'user', parts: [{ fileData: { mimeType: 'application/pdf', fileUri: 'gs://b/x.pdf' } }] },
          ],
        }),
      });
      expect(response.status).toBe(200);
      expect(JSON.stringify(harness.emulator.requests.at(-1)!.body)).toContain('gs://b/x.pdf');
    } finally {
      await server.close();
    }
  });
});

it('media in a Gemini functionResponse.parts reach the upstream inside the tool result (they were dropped)', async () => {
  harness.emulator.enqueue(hello());
  const png = Buffer.from('fake png bytes').toString('base64');
  const body = {
    contents: [
      { role: 'user', parts: [{ text: 'Take a picture' }] },
      { role: 'model', parts: [{ functionCall: { name: 'camera', args: {} } }] },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              name: 'camera',
              response: { ok: 1 },
              parts: [{ inlineData: { mimeType: 'image/png', data: png } }],
            },
          },
        ],
      },
    ],
    tools: [{ functionDeclarations: [{ name: 'camera', parameters: { type: 'object', properties: {} } }] }],
  };
  const response = await post('/v1beta/models/up-anthropic:generateContent', JSON.stringify(body));
  expect(response.status).toBe(200);
  const sent = JSON.stringify(harness.emulator.requests.at(-1)?.body);
  expect(sent).toContain('"type":"tool_result"');
  expect(sent).toContain(png);
});

it('a functionResponse part of another kind is refused by its path', async () => {
  const body = {
    contents: [
      { role: 'user', parts: [{ text: 'Go' }] },
      { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'f', response: {}, parts: [{ text: 'x' }] } }] },
    ],
  };
  const response = await post('/v1beta/models/up-anthropic:generateContent', JSON.stringify(body));
  expect(response.status).toBe(400);
  expect(await response.text()).toContain('contents.2.parts.0.functionResponse.parts.0');
});
