/**
 * Gemini 3 signs the text of a plain reply (`thoughtSignature` on the text part, or on a trailing
 * empty part when streamed). A client whose protocol has no field for it — Anthropic, Chat, a
 * Responses client without a stored response — sends the text back bare: the gateway keeps the
 * signature by the text it signs and puts it back on the next turn to Gemini. Found by a prober:
 * the second turn reached Gemini 3 without the signature.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorScript } from '../../src/testing/emulator/types.ts';
import { anthropicClient, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(() => harness.close());

const SIGNATURE = 'TEXT_SIG_Gemini3_abc123';
const usageMetadata = { promptTokenCount: 9, candidatesTokenCount: 5, totalTokenCount: 14 };
const modelVersion = 'gemini-3-pro-preview';

function signedReply(stream: boolean): void {
  harness.emulator.enqueue(
    (stream
      ? {
          type: 'sse',
          events: [
            {
              data: {
                candidates: [{ content: { role: 'model', parts: [{ text: 'There are 3 rs.' }] }, index: 0 }],
                modelVersion,
              },
            },
            {
              data: {
                candidates: [
                  {
                    content: { role: 'model', parts: [{ text: '', thoughtSignature: SIGNATURE }] },
                    finishReason: 'STOP',
                    index: 0,
                  },
                ],
                usageMetadata,
                modelVersion,
              },
            },
          ],
        }
      : {
          type: 'json',
          body: {
            candidates: [
              {
                content: { role: 'model', parts: [{ text: 'There are 3 rs.', thoughtSignature: SIGNATURE }] },
                finishReason: 'STOP',
                index: 0,
              },
            ],
            usageMetadata,
            modelVersion,
          },
        }) as EmulatorScript,
  );
}

async function post(path: string, body: object, headers: Record<string, string> = {}): Promise<string> {
  const response = await harness.post(path, body, headers);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return text;
}

/** Turn 2's model content as sent to Gemini 3. */
function replayedModelTurn(): unknown {
  const body = harness.emulator.requests.at(-1)!.body as { contents: Array<{ role: string }> };
  return body.contents.find((content) => content.role === 'model');
}

const signedTurn = { role: 'model', parts: [{ text: 'There are 3 rs.', thoughtSignature: SIGNATURE }] };
const ok = () =>
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] } as EmulatorScript);

describe("Gemini 3's signature of a text reply comes back through a client with no field for it", () => {
  for (const stream of [false, true]) {
    it(`Anthropic client (stream ${stream})`, async () => {
      signedReply(stream);
      const question = { role: 'user', content: 'count r' };
      const first = { model: 'up-gemini3', max_tokens: 500, stream, messages: [question] };
      await post('/v1/messages', first, anthropicClient);
      ok();
      await post(
        '/v1/messages',
        {
          ...first,
          stream: false,
          messages: [
            question,
            { role: 'assistant', content: 'There are 3 rs.' },
            { role: 'user', content: 'thanks' },
          ],
        },
        anthropicClient,
      );
      expect(replayedModelTurn()).toEqual(signedTurn);
    });

    it(`Chat client (stream ${stream})`, async () => {
      signedReply(stream);
      const question = { role: 'user', content: 'count r' };
      await post('/v1/chat/completions', { model: 'up-gemini3', stream, messages: [question] });
      ok();
      await post('/v1/chat/completions', {
        model: 'up-gemini3',
        messages: [
          question,
          { role: 'assistant', content: 'There are 3 rs.' },
          { role: 'user', content: 'thanks' },
        ],
      });
      expect(replayedModelTurn()).toEqual(signedTurn);
    });

    it(`Responses client without a stored response (stream ${stream})`, async () => {
      signedReply(stream);
      await post('/v1/responses', { model: 'up-gemini3', store: false, stream, input: 'count r' });
      ok();
      await post('/v1/responses', {
        model: 'up-gemini3',
        store: false,
        input: [
          { role: 'user', content: 'count r' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'There are 3 rs.' }] },
          { role: 'user', content: 'thanks' },
        ],
      });
      expect(replayedModelTurn()).toEqual(signedTurn);
    });
  }

  it('text the client changed goes unsigned', async () => {
    signedReply(false);
    const question = { role: 'user', content: 'count r' };
    await post('/v1/chat/completions', { model: 'up-gemini3', messages: [question] });
    ok();
    await post('/v1/chat/completions', {
      model: 'up-gemini3',
      messages: [
        question,
        { role: 'assistant', content: 'There are 3 r.' },
        { role: 'user', content: 'thanks' },
      ],
    });
    expect(replayedModelTurn()).toEqual({ role: 'model', parts: [{ text: 'There are 3 r.' }] });
  });
});
