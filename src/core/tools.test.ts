/** A freeform call's text, from what the model wrote however it wrote it. */
import { describe, expect, it } from 'vitest';
import { freeformText, freeformTool } from './tools.ts';

const patch = '*** Begin Patch\n*** Add File: a.txt\n+hi "there" \\ end\n*** End Patch';
const raw = (text: string) => ({ input: {}, metadata: { 'switchyard.raw_input': text } });

describe('freeformText', () => {
  it.each([
    ['the input string', { input: { input: patch } }, patch],
    ['an empty input string', { input: { input: '' } }, ''],
    ['a cut call with nothing kept', { input: {} }, ''],
    ['the raw text written as the arguments', raw(patch), patch],
    [
      '{"input": …} with literal newlines in its string',
      raw(`{"input": "${patch.replace(/["\\]/g, '\\$&')}"}`),
      patch,
    ],
    ['{"input": …} with a literal tab', raw('{"input":"a\tb"}'), 'a\tb'],
    ['any other input, as JSON', { input: { patch: 'x' } }, '{"patch":"x"}'],
  ])('%s', (_name, call, text) => {
    expect(freeformText(call as never)).toBe(text);
  });

  it('freeformTool describes the grammar in its one string parameter', () => {
    const spec = freeformTool('apply_patch', 'Edits files.', {
      type: 'grammar',
      syntax: 'lark',
      definition: 'start: "x"',
    });
    expect(spec.freeform).toEqual({ type: 'grammar', syntax: 'lark', definition: 'start: "x"' });
    expect(spec.inputSchema).toMatchObject({
      required: ['input'],
      properties: { input: { type: 'string' } },
    });
    expect(JSON.stringify(spec.inputSchema)).toContain('Lark grammar:\\nstart: \\"x\\"');
  });
});
