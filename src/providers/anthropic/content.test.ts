/** Content the API would refuse: whitespace-only text, trailing whitespace in a prefill, sources and image types. */
import { describe, expect, it } from 'vitest';
import { isInvalidRequestError } from '../../core/errors/guards.ts';
import { toolCallId } from '../../core/ids.ts';
import type { Item, Part, ToolResultPart } from '../../core/transcript.ts';
import type { WireMessage } from './api.ts';
import { buildTestRequest as build } from './test-support.ts';

const callId = toolCallId('tu_01JCALL000000000000000000');

function user(...parts: Part[]): Item {
  return { kind: 'user', parts };
}

function assistant(...parts: Part[]): Item {
  return { kind: 'assistant', parts };
}

function text(value: string): Part {
  return { type: 'text', text: value };
}

function result(output: ToolResultPart['output']): Item {
  return { kind: 'tool', parts: [{ type: 'tool-result', callId, output, isError: false }] };
}

function messagesOf(transcript: Item[]): WireMessage[] {
  return build({ transcript }).body.messages as unknown as WireMessage[];
}

function thrown(action: () => unknown): Error {
  try {
    action();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('whitespace-only text', () => {
  it('skips whitespace-only text in messages and tool results, with a WARN each', () => {
    const call: Part = { type: 'tool-call', id: callId, name: 'f', input: {} };
    const { body, warnings } = build({
      transcript: [
        user(text('hi'), text(' \n ')),
        assistant(text('\n\n'), call),
        result({ type: 'parts', parts: [text('  '), text('ok')] }),
        assistant(text('Done.')),
        user(text('again')),
        assistant(call),
        result({ type: 'text', text: '\t' }),
      ],
    });
    expect(body.messages).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "hi",
              "type": "text",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "id": "tu_01JCALL000000000000000000",
              "input": {},
              "name": "f",
              "type": "tool_use",
            },
          ],
          "role": "assistant",
        },
        {
          "content": [
            {
              "content": [
                {
                  "text": "ok",
                  "type": "text",
                },
              ],
              "tool_use_id": "tu_01JCALL000000000000000000",
              "type": "tool_result",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "text": "Done.",
              "type": "text",
            },
          ],
          "role": "assistant",
        },
        {
          "content": [
            {
              "text": "again",
              "type": "text",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "id": "tu_01JCALL000000000000000000",
              "input": {},
              "name": "f",
              "type": "tool_use",
            },
          ],
          "role": "assistant",
        },
        {
          "content": [
            {
              "tool_use_id": "tu_01JCALL000000000000000000",
              "type": "tool_result",
            },
          ],
          "role": "user",
        },
      ]
    `);
    expect(warnings.map((entry) => [entry.fields.blockType, entry.fields.reason])).toEqual([
      ['text', 'text content blocks must contain non-whitespace text'],
      ['text', 'text content blocks must contain non-whitespace text'],
      ['text', 'text content blocks must contain non-whitespace text'],
      ['tool-result', 'text content blocks must contain non-whitespace text'],
    ]);
  });

  it('skips empty text silently and omits a whitespace-only system prompt', () => {
    const { body, warnings } = build({
      transcript: [{ kind: 'system', parts: [text(' \n')] }, user(text(''), text('q'))],
    });
    expect(body).not.toHaveProperty('system');
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'q' }] }]);
    expect(warnings).toEqual([]);
  });
});

describe('trailing whitespace in a final assistant message', () => {
  it('trims the final text of a prefill', () => {
    const messages = messagesOf([
      user(text('Name a colour.')),
      assistant(text('Sure: '), text('the colour is\n')),
    ]);
    expect(messages.at(-1)).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Sure: ' },
        { type: 'text', text: 'the colour is' },
      ],
    });
  });

  it('keeps trailing whitespace in earlier assistant messages', () => {
    const messages = messagesOf([user(text('q')), assistant(text('Answer. ')), user(text('more'))]);
    expect(messages[1]?.content).toEqual([{ type: 'text', text: 'Answer. ' }]);
  });

  it('leaves out a prefill that is only whitespace', () => {
    const messages = messagesOf([user(text('q')), assistant(text('  '))]);
    expect(messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'q' }] }]);
  });
});

describe('sources', () => {
  const image = (mimeType: string, data: Extract<Part, { type: 'media' }>['data']): Part => ({
    type: 'media',
    modality: 'image',
    mimeType,
    data,
  });

  it('sends base64 data: URIs as base64 sources with the URI’s media type', () => {
    const messages = messagesOf([
      user(
        image('image/png', { type: 'uri', uri: 'data:image/jpeg;base64,/9j/4AAQ' }),
        {
          type: 'file',
          mimeType: 'application/pdf',
          data: { type: 'uri', uri: 'data:application/pdf;base64,JVBERi0=' },
        },
        {
          type: 'file',
          mimeType: 'text/plain',
          data: { type: 'uri', uri: 'data:text/plain;charset=utf-8;base64,aGk=' },
        },
        image('image/gif', { type: 'uri', uri: 'data:;base64,R0lGOD' }),
      ),
    ]);
    expect(messages[0]?.content).toMatchInlineSnapshot(`
      [
        {
          "source": {
            "data": "/9j/4AAQ",
            "media_type": "image/jpeg",
            "type": "base64",
          },
          "type": "image",
        },
        {
          "source": {
            "data": "JVBERi0=",
            "media_type": "application/pdf",
            "type": "base64",
          },
          "type": "document",
        },
        {
          "source": {
            "data": "hi",
            "media_type": "text/plain",
            "type": "text",
          },
          "type": "document",
        },
        {
          "source": {
            "data": "R0lGOD",
            "media_type": "image/gif",
            "type": "base64",
          },
          "type": "image",
        },
      ]
    `);
  });

  it('drops URIs with schemes other than http and https with a WARN naming the scheme, not the URI', () => {
    const { body, warnings } = build({
      transcript: [
        user(text('Look.'), image('image/png', { type: 'uri', uri: 'gs://bucket/cat.png?token=SECRET' })),
        user({ type: 'file', mimeType: 'application/pdf', data: { type: 'uri', uri: 'file:///etc/a.pdf' } }),
        user(image('image/png', { type: 'uri', uri: 'cat.png' })),
      ],
    });
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Look.' }] }]);
    const reasons = warnings.map((entry) => String(entry.fields.reason));
    expect(reasons[0]).toContain('an image is a gs: URI');
    expect(reasons[1]).toContain('a PDF document is a file: URI');
    expect(reasons[2]).toContain('a URI without a scheme');
    expect(JSON.stringify(warnings)).not.toContain('SECRET');
    expect(warnings.map((entry) => [entry.fields.itemIndex, entry.fields.partIndex])).toEqual([
      [0, 1],
      [1, 0],
      [2, 0],
    ]);
  });

  it('refuses a data: URI that is not base64-encoded', () => {
    const error = thrown(() =>
      messagesOf([user(image('image/svg+xml', { type: 'uri', uri: 'data:image/png,%89PNG' }))]),
    );
    expect(isInvalidRequestError(error)).toBe(true);
    expect(error.message).toContain('not base64-encoded');
  });

  it('keeps http and https URLs as URL sources', () => {
    const messages = messagesOf([user(image('image/png', { type: 'uri', uri: 'HTTPS://x/cat.png' }))]);
    expect(messages[0]?.content).toEqual([
      { type: 'image', source: { type: 'url', url: 'HTTPS://x/cat.png' } },
    ]);
  });
});

describe('image media types', () => {
  it('drops inline images outside jpeg, png, gif and webp with a WARN naming the type', () => {
    const cases: Item[] = [
      user({
        type: 'media',
        modality: 'image',
        mimeType: 'image/heic',
        data: { type: 'base64', data: 'AAAA' },
      }),
      user({
        type: 'media',
        modality: 'image',
        mimeType: 'image/png',
        data: { type: 'uri', uri: 'data:image/svg+xml;base64,PHN2Zz4=' },
      }),
      user({ type: 'file', mimeType: 'image/tiff', data: { type: 'bytes', bytes: new Uint8Array([1, 2]) } }),
      result({
        type: 'parts',
        parts: [
          { type: 'media', modality: 'image', mimeType: 'image/bmp', data: { type: 'base64', data: 'Qk0=' } },
        ],
      }),
    ];
    const reasons = cases.map((item) => {
      // A turn after it: one left with nothing is refused (see 'an empty user turn').
      const { body, warnings } = build({ transcript: [item, user(text('What is it?'))] });
      expect(JSON.stringify(body.messages)).not.toContain('"image"');
      return warnings.map((entry) => entry.fields.reason);
    });
    expect(reasons).toEqual([
      [
        'an image has media type image/heic, which the Messages API does not take (it takes image/jpeg, image/png, image/gif, image/webp)',
      ],
      [
        'an image has media type image/svg+xml, which the Messages API does not take (it takes image/jpeg, image/png, image/gif, image/webp)',
      ],
      [
        'an image file has media type image/tiff, which the Messages API does not take (it takes image/jpeg, image/png, image/gif, image/webp)',
      ],
      [
        'an image has media type image/bmp, which the Messages API does not take (it takes image/jpeg, image/png, image/gif, image/webp)',
      ],
    ]);
  });

  it('leaves the type of URL images to the API, which reads it from the fetched file', () => {
    const messages = messagesOf([
      user({
        type: 'media',
        modality: 'image',
        mimeType: 'image/heic',
        data: { type: 'uri', uri: 'https://x/a' },
      }),
    ]);
    expect(messages[0]?.content).toEqual([{ type: 'image', source: { type: 'url', url: 'https://x/a' } }]);
  });
});

describe('an empty user turn', () => {
  it('is refused naming the turn, never left out (a trailing one would turn the call into a prefill)', () => {
    for (const empty of ['', ' \n']) {
      const error = thrown(() =>
        build({ transcript: [user(text('Tell me a joke')), assistant(text('Why?')), user(text(empty))] }),
      );
      expect(isInvalidRequestError(error)).toBe(true);
      expect(error.message).toContain('the user turn (transcript[2].parts[0]) is empty');
    }
  });

  it('a last user turn left out whole by the converter (audio it does not take) is refused, never a prefill', () => {
    const audio: Part = {
      type: 'media',
      modality: 'audio',
      mimeType: 'audio/wav',
      data: { type: 'base64', data: 'UklGRg==' },
    };
    for (const transcript of [
      [
        user(text('Hi')),
        assistant(text('Sure,')),
        user(text('')),
        { kind: 'system', parts: [text('Be brief.')] } as Item,
        user(audio),
      ],
      [user(text('Hi')), assistant(text('Sure,')), user(audio)],
    ]) {
      const error = thrown(() => build({ transcript }));
      expect(isInvalidRequestError(error)).toBe(true);
      expect(error.message).toContain(
        `nothing of the last user turn (transcript[${transcript.length - 1}].parts[0])`,
      );
    }
  });

  it('is sent merged into the message it joins: after a tool result, beside a user turn, across a system item', () => {
    const call: Part = { type: 'tool-call', id: callId, name: 'f', input: {} };
    const afterResult = messagesOf([
      user(text('weather?')),
      assistant(call),
      result({ type: 'text', text: 'sunny' }),
      user(text('')),
    ]);
    expect(afterResult.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: expect.any(String), content: 'sunny' }],
    });
    const beside = messagesOf([
      user(text('Tell me a joke')),
      assistant(text('Why?')),
      user(text(' ')),
      { kind: 'system', parts: [text('Be brief.')] },
      user(text('Go on')),
    ]);
    expect(beside.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'Go on' }] });
    // Two empty turns together are still a message of nothing: the first is named.
    const error = thrown(() =>
      messagesOf([user(text('Hi')), assistant(text('Why?')), user(text('')), user(text(' '))]),
    );
    expect(error.message).toContain('the user turn (transcript[2].parts[0]) is empty');
  });

  it('empty text beside other content is no empty turn', () => {
    const messages = messagesOf([user(text('Hi'), text('')), assistant(text('Hello.')), user(text('q'))]);
    expect(messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Hi' }] });
  });
});
