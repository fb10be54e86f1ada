/** A Responses client's built-in calls it ran and their answers decode to tool calls and results keeping each item. */
import { describe, expect, it } from 'vitest';
import { verbatimOpaque } from '../opaque.ts';
import type { Part } from '../../core/transcript.ts';
import { underClientCallIds, untaggedItemKey } from './client-calls.ts';
import { decodeRequest } from './request.ts';

const decode = (input: unknown[]) =>
  decodeRequest({ model: 'm', input }, verbatimOpaque).request.transcript.flatMap((item) => item.parts);

describe('client-run built-in items in a Responses request', () => {
  it('each call is a tool call named by its tool, its payload the input; each answer a tool result', () => {
    const calls = [
      {
        type: 'apply_patch_call',
        id: 'apc_1',
        call_id: 'c1',
        status: 'completed',
        operation: { type: 'delete_file', path: 'a' },
      },
      {
        type: 'local_shell_call',
        id: 'lsh_1',
        call_id: 'c2',
        status: 'completed',
        action: { type: 'exec', command: ['ls'], env: {} },
      },
      {
        type: 'shell_call',
        id: 'sh_1',
        call_id: 'c3',
        action: { commands: ['pwd'] },
        environment: { type: 'local' },
      },
      {
        type: 'tool_search_call',
        id: 'tsc_1',
        call_id: 'c4',
        execution: 'client',
        arguments: { goal: 'weather' },
      },
    ];
    const answers = [
      { type: 'apply_patch_call_output', call_id: 'c1', status: 'failed', output: 'no such file' },
      { type: 'local_shell_call_output', id: 'c2', output: 'a.txt' },
      {
        type: 'shell_call_output',
        call_id: 'c3',
        output: [{ stdout: '/', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
      },
      {
        type: 'tool_search_output',
        call_id: 'c4',
        execution: 'client',
        tools: [{ type: 'function', name: 'w' }],
      },
    ];
    const parts = decode([{ role: 'user', content: 'go' }, ...calls, ...answers]).slice(1);
    expect(parts.map((part) => part.type === 'tool-call' && [part.id, part.name, part.input])).toEqual([
      ['c1', 'apply_patch', { operation: calls[0]!.operation }],
      ['c2', 'local_shell', { action: calls[1]!.action }],
      ['c3', 'shell', { action: calls[2]!.action }],
      ['c4', 'tool_search', { arguments: calls[3]!.arguments }],
      false,
      false,
      false,
      false,
    ]);
    expect(
      parts.slice(4).map((part) => part.type === 'tool-result' && [part.callId, part.output, part.isError]),
    ).toEqual([
      ['c1', { type: 'text', text: 'no such file' }, true],
      ['c2', { type: 'text', text: 'a.txt' }, false],
      ['c3', { type: 'json', value: answers[2]!.output }, false],
      ['c4', { type: 'json', value: { tools: answers[3]!.tools } }, false],
    ]);
    expect(parts.map((part) => part.metadata?.[untaggedItemKey])).toEqual([...calls, ...answers]);
  });

  it('a call the server ran (a shell in a container, a server tool search) is refused by name', () => {
    expect(() =>
      decode([
        {
          type: 'shell_call',
          call_id: 'c',
          action: { commands: [] },
          environment: { type: 'container_reference', container_id: 'x' },
        },
      ]),
    ).toThrow(/^input item type 'shell_call' run by the server is not supported/);
    expect(() =>
      decode([{ type: 'tool_search_call', call_id: 'c', execution: 'server', arguments: {} }]),
    ).toThrow(/run by the server/);
  });
});

describe('underClientCallIds', () => {
  const patch = {
    type: 'apply_patch_call',
    id: 'apc_1',
    call_id: 'call_up',
    operation: { type: 'delete_file', path: 'a' },
  };
  const client: Part = {
    type: 'tool-call',
    id: 'tu_1' as never,
    name: 'apply_patch',
    input: { operation: patch.operation },
    metadata: { 'responses.item': patch },
  };
  const fn: Part = { type: 'tool-call', id: 'tu_2' as never, name: 'f', input: {} };

  it('a client-run call of the upstream is named by its item’s call_id; a function call keeps its id', () => {
    const content = [client, fn];
    const renamed = underClientCallIds(content, 'responses');
    expect(renamed.map((part) => part.type === 'tool-call' && part.id)).toEqual(['call_up', 'tu_2']);
    expect(content[0]).toBe(client); // not changed in place
  });

  it('another provider’s item, or none to rename: the same array', () => {
    const content = [client, fn];
    expect(underClientCallIds(content, 'openai')).toBe(content);
    expect(underClientCallIds(content, undefined)).toBe(content);
    expect(underClientCallIds([fn], 'responses')).toEqual([fn]);
  });
});
