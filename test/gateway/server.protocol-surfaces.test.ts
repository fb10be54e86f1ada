/**
 * The gateway's protocol surfaces beyond generation: stored Responses, model listings in each
 * protocol's shape, token counting and the native stream.
 */
import { describe, expect, it } from 'vitest';
import { createClients } from './harness.ts';
import { hello, useServerHarness } from './server-harness.ts';

const { harness, post } = useServerHarness();

describe('protocol surfaces', () => {
  it('Responses store + previous_response_id: the stored transcript continues; an unknown id is a 404', async () => {
    const { openai } = createClients(harness.server.url, 'ops-key-2');
    harness.emulator.enqueue(hello('First answer.'));
    const first = await openai.responses.create({ model: 'up-chat', input: 'Remember: blue.', store: true });
    harness.emulator.enqueue(hello('Blue.'));
    const second = await openai.responses.create({
      model: 'up-chat',
      input: 'Which colour?',
      previous_response_id: first.id,
    });
    expect(second.output_text).toBe('Blue.');
    const upstream = JSON.stringify(harness.emulator.requests.at(-1)?.body);
    expect(upstream).toContain('Remember: blue.');
    expect(upstream).toContain('First answer.');
    await expect(
      openai.responses.create({ model: 'up-chat', input: 'x', previous_response_id: 'resp_unknown' }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('a stored response and a call’s stored artifacts belong to the key that made them', async () => {
    const ops = createClients(harness.server.url, 'ops-key-2').openai;
    const team = createClients(harness.server.url, 'team-key-1').openai;
    harness.emulator.enqueue(hello('Ops secret answer.'));
    const first = await ops.responses.create({ model: 'up-chat', input: 'Ops secret prompt.', store: true });
    await expect(
      team.responses.create({ model: 'up-chat', input: 'Go on.', previous_response_id: first.id }),
    ).rejects.toMatchObject({ status: 404 });
    // A Gemini thinking model's call signature, kept for a Chat client by call id: only its own key gets it back.
    harness.emulator.enqueue({
      type: 'scripted',
      content: [
        { type: 'reasoning', text: 'private thought', signature: 'OPS-SIGNATURE' },
        { type: 'tool-call', id: 'fn_1', name: 'lookup', input: {}, signature: 'OPS-CALL-SIGNATURE' },
      ],
    });
    const tools = [
      { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } },
    ];
    const made = await ops.chat.completions.create({
      model: 'up-gemini',
      messages: [{ role: 'user', content: 'Look it up.' }],
      tools,
    });
    const call = made.choices[0]!.message.tool_calls![0]!;
    const replay = (client: typeof ops) => {
      harness.emulator.enqueue(hello('Done.'));
      return client.chat.completions.create({
        model: 'up-gemini',
        tools,
        messages: [
          { role: 'user', content: 'Look it up.' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: call.id, content: 'found' },
        ],
      });
    };
    await replay(ops);
    expect(JSON.stringify(harness.emulator.requests.at(-1)?.body)).toContain('OPS-CALL-SIGNATURE');
    const before = harness.emulator.requests.length;
    // Served (gemini-2.5-flash does not require the signature back), without the other key's artifacts.
    await replay(team);
    expect(harness.emulator.requests.length).toBe(before + 1);
    const seen = JSON.stringify(harness.emulator.requests.at(-1)?.body);
    expect(seen).not.toContain('OPS-CALL-SIGNATURE');
    expect(seen).not.toContain('private thought');
  });

  it('a key sees and counts only the models it may use; an unknown model is a 404', async () => {
    const team = createClients(harness.server.url, 'team-key-1');
    const listed = [];
    for await (const model of team.openai.models.list()) listed.push(model.id);
    expect(listed.sort()).toEqual(['up-chat', 'up-gemini', 'up-responses']);
    const count = (key: string, model: string) =>
      post(
        '/v1/messages/count_tokens',
        JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }] }),
        { authorization: `Bearer ${key}` },
      );
    expect((await count('team-key-1', 'up-anthropic')).status).toBe(403);
    expect((await count('team-key-1', 'up-chat')).status).toBe(200);
    expect((await count('ops-key-2', 'no-such-model-anywhere')).status).toBe(404);
    // A restricted key learns nothing of what is configured: unknown and forbidden names alike are 403.
    expect((await count('team-key-1', 'no-such-model-anywhere')).status).toBe(403);
    const long = await post(
      '/v1/chat/completions',
      JSON.stringify({ model: 'x'.repeat(2000), messages: [{ role: 'user', content: 'Hi' }] }),
      { authorization: 'Bearer team-key-1' },
    );
    expect(long.status).toBe(403);
    expect((await long.text()).length).toBeLessThan(600);
  });

  it('one model in each SDK’s shape (models.retrieve / models.get); a model the key may not use is a 404', async () => {
    const ops = createClients(harness.server.url, 'ops-key-2');
    expect(await ops.openai.models.retrieve('up-chat')).toMatchObject({ id: 'up-chat', object: 'model' });
    expect(await ops.anthropic.models.retrieve('up-anthropic')).toMatchObject({
      id: 'up-anthropic',
      type: 'model',
    });
    expect(await ops.google.models.get({ model: 'up-gemini' })).toMatchObject({ name: 'models/up-gemini' });
    const team = createClients(harness.server.url, 'team-key-1');
    await expect(team.openai.models.retrieve('up-anthropic')).rejects.toMatchObject({ status: 404 });
    // A name the generation routes would serve though no listing shows it (a `provider:` prefix).
    expect(await ops.openai.models.retrieve('openai:gpt-made-up-9')).toMatchObject({
      id: 'openai:gpt-made-up-9',
    });
    await expect(team.openai.models.retrieve('openai:gpt-made-up-9')).rejects.toMatchObject({ status: 404 });
    const healthz = await fetch(`${harness.server.url}/healthz`);
    expect(healthz.status).toBe(200);
  });

  it('model listings in each protocol’s shape, and token counting', async () => {
    const clients = createClients(harness.server.url, 'ops-key-2');
    const openaiIds = [];
    for await (const model of clients.openai.models.list()) openaiIds.push(model.id);
    expect(openaiIds).toContain('up-gemini');
    const anthropicIds = [];
    for await (const model of clients.anthropic.models.list()) anthropicIds.push(model.id);
    expect(anthropicIds).toContain('up-anthropic');
    const geminiNames = [];
    for await (const model of await clients.google.models.list()) geminiNames.push(model.name);
    expect(geminiNames).toContain('models/up-chat');
    const counted = await clients.anthropic.messages.countTokens({
      model: 'up-chat',
      messages: [{ role: 'user', content: 'Count these words please.' }],
    });
    expect(counted.input_tokens).toBeGreaterThan(0);
    const geminiCount = await clients.google.models.countTokens({
      model: 'up-chat',
      contents: 'Count these words please.',
    });
    expect(geminiCount.totalTokens).toBeGreaterThan(0);
  });

  it('the native endpoint streams canonical events, finish last', async () => {
    harness.emulator.enqueue(hello('Native.'));
    const response = await post(
      '/switchyard/v1/stream',
      JSON.stringify({
        model: 'up-chat',
        transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
      }),
    );
    const text = await response.text();
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('event: '))
      .map((line) => line.slice(7));
    expect(events[0]).toBe('message-start');
    expect(events.at(-1)).toBe('finish');
    expect(text).toContain('Native.');
  });

  it.each([
    ['null', 'null'],
    ['a number', '42'],
    ['a model that is not a string', '{"model":123}'],
    ['a transcript that is not an array', '{"model":"up-chat","transcript":"str"}'],
    [
      'an unknown model',
      '{"model":"no-such-model","transcript":[{"kind":"user","parts":[{"type":"text","text":"Hi"}]}]}',
    ],
  ])(
    'the native endpoint answers %s with an HTTP error before any event, not a 200 stream',
    async (_, body) => {
      const response = await post('/switchyard/v1/stream', body);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(response.headers.get('content-type')).toContain('application/json');
      const error = ((await response.json()) as { error: { message: string } }).error;
      expect(error.message.length).toBeGreaterThan(0);
    },
  );
});
