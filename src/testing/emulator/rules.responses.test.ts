/** The emulator's OpenAI Responses rules: the failure modes of stateful and stateless replay, with OpenAI's bodies. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from './index.ts';
import { fixture, openaiHeaders, postJson } from './test-support.ts';

let emulator: Emulator;

beforeEach(async () => {
  emulator = await startEmulator();
  emulator.setDefault({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
});

afterEach(async () => {
  await emulator.close();
});

type ErrorBody = { error: { message: string; type: string; param: string | null; code: string | null } };
type ResponseBody = { id: string; output: Array<Record<string, unknown> & { id: string; type: string }> };

function responses(body: Record<string, unknown>) {
  return postJson(`${emulator.url}/v1/responses`, { model: 'gpt-5-mini', ...body }, openaiHeaders);
}

async function failure(body: Record<string, unknown>): Promise<{ status: number; body: ErrorBody }> {
  const response = await responses(body);
  return { status: response.status, body: (await response.json()) as ErrorBody };
}

const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });

/** One stored turn with reasoning and a function call (`store` default true). */
async function storedToolTurn(): Promise<ResponseBody> {
  emulator.enqueue({
    type: 'scripted',
    content: [
      { type: 'reasoning', text: 'Look it up.' },
      { type: 'tool-call', name: 'weather', input: { city: 'Rome' } },
    ],
  });
  const response = await responses({
    input: [user('Weather in Rome?')],
    include: ['reasoning.encrypted_content'],
  });
  expect(response.status).toBe(200);
  return (await response.json()) as ResponseBody;
}

describe('emulator: OpenAI Responses rules', () => {
  it("a reasoning item sent by id with store: false is 404 Item with id 'rs_…' not found", async () => {
    const result = await failure({
      store: false,
      input: [
        user('Hi'),
        { type: 'reasoning', id: 'rs_abc', summary: [] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello' }] },
        user('Again'),
      ],
    });
    expect(result.status).toBe(404);
    expect(result.body.error).toEqual({
      message:
        "Item with id 'rs_abc' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
      type: 'invalid_request_error',
      param: 'input',
      code: null,
    });
  });

  it('a reasoning item without the item that followed it is rejected', async () => {
    const result = await failure({
      store: false,
      input: [
        user('Hi'),
        { type: 'reasoning', id: 'rs_lonely', summary: [], encrypted_content: 'gAAAA' },
        user('Again'),
      ],
    });
    expect(result.status).toBe(400);
    expect(result.body.error.message).toBe(
      "Item 'rs_lonely' of type 'reasoning' was provided without its required following item.",
    );
  });

  it('a reasoning item carried whole with its follower passes with store: false', async () => {
    const response = await responses({
      store: false,
      input: [
        user('Hi'),
        { type: 'reasoning', id: 'rs_whole', summary: [], encrypted_content: 'gAAAA' },
        {
          type: 'message',
          role: 'assistant',
          id: 'msg_whole',
          content: [{ type: 'output_text', text: 'Hello' }],
        },
        user('Again'),
      ],
    });
    expect(response.status).toBe(200);
  });

  it('previous_response_id plus replayed items is 400 Duplicate item found', async () => {
    const first = await storedToolTurn();
    const call = first.output.find((item) => item.type === 'function_call')!;
    const result = await failure({
      previous_response_id: first.id,
      input: [...first.output, { type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
    });
    expect(result.status).toBe(400);
    expect(result.body.error.message).toBe(
      `Duplicate item found with id ${first.output[0]!.id}. Remove duplicate items from your input and try again.`,
    );
  });

  it('previous_response_id plus only the new items passes, the call answered from the stored response', async () => {
    const first = await storedToolTurn();
    const call = first.output.find((item) => item.type === 'function_call')!;
    const response = await responses({
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
    });
    expect(response.status).toBe(200);
  });

  it('a stored output answered without previous_response_id is an orphan function_call_output', async () => {
    const first = await storedToolTurn();
    const call = first.output.find((item) => item.type === 'function_call')!;
    const result = await failure({
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'x' }],
    });
    expect(result.body.error.message).toBe(
      `No tool call found for function call output with call_id ${String(call.call_id)}.`,
    );
  });

  it('an unknown previous_response_id is 400 previous_response_not_found', async () => {
    const result = await failure({ previous_response_id: 'resp_gone', input: [user('Hi')] });
    expect(result).toMatchObject({
      status: 400,
      body: {
        error: {
          message: "Previous response with id 'resp_gone' not found.",
          param: 'previous_response_id',
          code: 'previous_response_not_found',
        },
      },
    });
  });

  it('after a tool approval round, sending the approval request again is a duplicate mcpr_ item', async () => {
    emulator.enqueue({ type: 'replay', file: fixture('openai/responses/openai-mcp-tool-approval.1.json') });
    const first = (await (await responses({ input: [user('Roll 2d4+1')] })).json()) as ResponseBody;
    const request = first.output.find((item) => item.type === 'mcp_approval_request')!;
    const approval = { type: 'mcp_approval_response', approve: true, approval_request_id: request.id };
    const duplicate = await failure({ previous_response_id: first.id, input: [request, approval] });
    expect(duplicate.body.error.message).toBe(
      `Duplicate item found with id ${request.id}. Remove duplicate items from your input and try again.`,
    );
    const ok = await responses({ previous_response_id: first.id, input: [approval] });
    expect(ok.status).toBe(200);
  });

  it('two items sharing an msg_ id (one from another provider) are a duplicate', async () => {
    const message = (text: string) => ({
      type: 'message',
      role: 'assistant',
      id: 'msg_same',
      content: [{ type: 'output_text', text }],
    });
    const result = await failure({
      store: false,
      input: [user('a'), message('one'), user('b'), message('two'), user('c')],
    });
    expect(result.body.error.message).toMatch(/^Duplicate item found with id msg_same\./);
  });

  it('previous_response_id and conversation together are mutually exclusive', async () => {
    const first = await storedToolTurn();
    const result = await failure({
      previous_response_id: first.id,
      conversation: 'conv_1',
      input: [user('Hi')],
    });
    expect(result.body.error.code).toBe('mutually_exclusive_parameters');
  });

  it('a conversation holds what its responses added: replaying them is a duplicate', async () => {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Hello' }] });
    const first = (await (
      await responses({ conversation: 'conv_1', input: [user('Hi')] })
    ).json()) as ResponseBody;
    const result = await failure({ conversation: 'conv_1', input: [first.output[0], user('Again')] });
    expect(result.body.error.message).toMatch(/^Duplicate item found with id msg_/);
  });

  it('encrypted reasoning issued to one API key is 400 invalid_encrypted_content under another key, accepted under its own', async () => {
    const first = await storedToolTurn();
    const reasoning = first.output.find((item) => item.type === 'reasoning')!;
    const call = first.output.find((item) => item.type === 'function_call')!;
    expect(reasoning.encrypted_content).toEqual(expect.any(String));
    const body = {
      model: 'gpt-5-mini',
      store: false,
      input: [
        user('Weather in Rome?'),
        { type: 'reasoning', encrypted_content: reasoning.encrypted_content, summary: [] },
        call,
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
    };
    const url = `${emulator.url}/v1/responses`;
    const other = await postJson(url, body, {
      ...openaiHeaders,
      authorization: 'Bearer sk-other-account-0000',
    });
    expect(other.status).toBe(400);
    expect(((await other.json()) as ErrorBody).error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_encrypted_content',
      message: expect.stringMatching(/organization_id did not match the target organization/),
    });
    expect((await postJson(url, body, openaiHeaders)).status).toBe(200);
  });

  it('store: false keeps nothing: a later previous_response_id to it is not found', async () => {
    const response = (await (await responses({ store: false, input: [user('Hi')] })).json()) as ResponseBody;
    const result = await failure({ previous_response_id: response.id, input: [user('Again')] });
    expect(result.body.error.code).toBe('previous_response_not_found');
  });
});
