/** A Responses request's built-in tools decode to `providerOptions['openai-responses']`, left out (WARN) on another route. */
import { describe, expect, it } from 'vitest';
import { verbatimOpaque } from '../opaque.ts';
import { RequestFieldError } from '../fields.ts';
import { builtinsLeftOutByFallback, leaveOutBuiltins } from './builtin-tools.ts';
import { decodeRequest } from './request.ts';

const shell = { type: 'function', name: 'shell', parameters: { type: 'object' } };
const decode = (fields: Record<string, unknown>) =>
  decodeRequest({ model: 'm', input: 'Hi', ...fields }, verbatimOpaque);

describe('built-in tools in a Responses request', () => {
  it('go as written in providerOptions["openai-responses"].tools, named in builtinTools; function tools stay canonical; no warning', () => {
    const search = { type: 'web_search', search_context_size: 'low' };
    const decoded = decode({ tools: [search, shell, { type: 'local_shell' }] });
    expect(decoded.request.tools?.map((tool) => tool.name)).toEqual(['shell']);
    expect(decoded.request.providerOptions).toEqual({
      'openai-responses': { tools: [search, { type: 'local_shell' }] },
    });
    expect(decoded.builtinTools).toEqual([
      { path: 'tools.0', type: 'web_search' },
      { path: 'tools.2', type: 'local_shell' },
    ]);
    expect(decoded.warnings).toBeUndefined();
  });

  it('an additional_tools item declaring a built-in tool again replaces it (mcp servers by label)', () => {
    const declared = [
      { type: 'web_search', search_context_size: 'high' },
      { type: 'mcp', server_label: 'b' },
    ];
    const decoded = decode({
      tools: [{ type: 'web_search' }, { type: 'mcp', server_label: 'a' }],
      input: [{ type: 'additional_tools', tools: declared }],
    });
    expect(decoded.request.providerOptions?.['openai-responses']?.tools).toEqual([
      declared[0],
      { type: 'mcp', server_label: 'a' },
      declared[1],
    ]);
  });

  it('a tool_choice naming one goes as written, with no canonical choice; allowed_tools is still refused', () => {
    const decoded = decode({ tools: [shell, { type: 'web_search' }], tool_choice: { type: 'web_search' } });
    expect(decoded.request.toolChoice).toBeUndefined();
    expect(decoded.request.providerOptions?.['openai-responses']?.tool_choice).toEqual({
      type: 'web_search',
    });
    expect(decoded.builtinTools?.at(-1)).toEqual({ path: 'tool_choice', type: 'web_search' });
    expect(() => decode({ tools: [shell], tool_choice: { type: 'allowed_tools', mode: 'auto' } })).toThrow(
      RequestFieldError,
    );
  });

  it('tool_choice required with built-in tools only goes as written beside them, with no canonical choice (it was a 400)', () => {
    const decoded = decode({ tools: [{ type: 'web_search' }], tool_choice: 'required' });
    expect(decoded.request.toolChoice).toBeUndefined();
    expect(decoded.request.providerOptions).toEqual({
      'openai-responses': { tools: [{ type: 'web_search' }], tool_choice: 'required' },
    });
    expect(decoded.builtinTools).toEqual([{ path: 'tools.0', type: 'web_search' }]);
    // With a function tool beside them, required stays the canonical choice (every route honours it).
    const mixed = decode({ tools: [shell, { type: 'web_search' }], tool_choice: 'required' });
    expect(mixed.request.toolChoice).toBe('required');
    expect(mixed.request.providerOptions?.['openai-responses']?.tool_choice).toBeUndefined();
  });

  it('a tool of no type, or not a function inside a namespace, is still left out with a warning', () => {
    const decoded = decode({
      tools: [{ name: 'x' }, { type: 'namespace', name: 'ns', tools: [{ type: 'web_search' }] }],
    });
    expect(decoded.request.providerOptions).toBeUndefined();
    expect(decoded.warnings).toEqual([
      "tools.0: tool type 'undefined' is not offered to the model",
      "tools.1.tools.0: tool type 'web_search' is not offered to the model",
    ]);
  });
});

describe('leaveOutBuiltins (a route to another provider)', () => {
  it('takes them and their tool_choice out of the request, naming each in the warnings', () => {
    const decoded = decode({ tools: [shell, { type: 'web_search' }], tool_choice: { type: 'web_search' } });
    leaveOutBuiltins(decoded);
    expect(decoded.request.providerOptions).toBeUndefined();
    expect(decoded.request.tools?.map((tool) => tool.name)).toEqual(['shell']);
    expect(decoded.builtinTools).toBeUndefined();
    expect(decoded.warnings).toEqual([
      "tools.1: tool type 'web_search' is not offered to the model (only a Responses upstream serves it)",
      "tool_choice: built-in tool 'web_search' is not offered to the model (only a Responses upstream serves it); the model chooses",
    ]);
  });

  it('refuses tool_choice required naming the field where none of its built-in tools is left; keeps it where one is', () => {
    const only = decode({ tools: [{ type: 'web_search' }, { type: 'mcp' }], tool_choice: 'required' });
    expect(() => leaveOutBuiltins(only)).toThrow(
      expect.objectContaining({
        field: 'tool_choice',
        message: expect.stringMatching(
          /^tool_choice: required .*built-in tools \('web_search', 'mcp'\).*only a Responses upstream serves it/,
        ),
      }),
    );
    const disallowed = decode({ tools: [{ type: 'mcp' }], tool_choice: 'required' });
    expect(() => leaveOutBuiltins(disallowed, new Set(['web_search']))).toThrow(/gateway\.builtin_tools/);
    const kept = decode({ tools: [{ type: 'web_search' }, { type: 'mcp' }], tool_choice: 'required' });
    leaveOutBuiltins(kept, new Set(['web_search']));
    expect(kept.request.providerOptions).toEqual({
      'openai-responses': { tools: [{ type: 'web_search' }], tool_choice: 'required' },
    });
  });

  it('leaves a request without built-in tools as it was', () => {
    const decoded = decode({ tools: [shell] });
    leaveOutBuiltins(decoded);
    expect(decoded.warnings).toBeUndefined();
    expect(decoded.request.providerOptions).toBeUndefined();
  });
});

describe('builtinsLeftOutByFallback (another provider served a Responses route)', () => {
  it('names each kept built-in tool, and a required choice that was theirs; nothing for a request without', () => {
    const decoded = decode({ tools: [{ type: 'web_search' }], tool_choice: 'required' });
    expect(builtinsLeftOutByFallback(decoded, 'anthropic:claude-sonnet-4-5')).toEqual([
      "tools.0: tool type 'web_search' is not offered to the model (only a Responses upstream serves it; the fallback 'anthropic:claude-sonnet-4-5' is not one)",
      "tool_choice: required was not honoured (only a Responses upstream serves it; the fallback 'anthropic:claude-sonnet-4-5' is not one); the model chose",
    ]);
    expect(builtinsLeftOutByFallback(decode({ tools: [shell] }), 'x:y')).toEqual([]);
  });
});

describe('built-in tools that name the operator’s account objects', () => {
  const hosted = [
    { type: 'shell', environment: { type: 'container_reference', container_id: 'cntr_1' } },
    { type: 'shell', environment: { type: 'container_auto', file_ids: ['file-1'] } },
  ];

  it('a shell in a hosted container is kind hosted_shell: left out unless gateway.builtin_tools lists that, with a WARN naming it', () => {
    const allowed = new Set(['shell', 'web_search']);
    for (const tool of hosted) {
      const decoded = decode({ tools: [tool, { type: 'web_search' }] });
      expect(decoded.builtinTools?.[0]).toEqual({ path: 'tools.0', type: 'shell', kind: 'hosted_shell' });
      leaveOutBuiltins(decoded, allowed);
      expect(decoded.request.providerOptions).toEqual({
        'openai-responses': { tools: [{ type: 'web_search' }] },
      });
      expect(decoded.warnings).toEqual([
        "tools.0: tool type 'shell' (as 'hosted_shell') is not offered to the model (the gateway does not allow it: gateway.builtin_tools)",
      ]);
      const opted = decode({ tools: [tool] });
      leaveOutBuiltins(opted, new Set(['hosted_shell']));
      expect(opted.request.providerOptions).toEqual({ 'openai-responses': { tools: [tool] } });
      expect(opted.warnings).toBeUndefined();
    }
  });

  it('a shell with no environment or a local one (its skills the client’s own paths) passes as shell', () => {
    const local = {
      type: 'shell',
      environment: { type: 'local', skills: [{ name: 's', description: 'd', path: '/s' }] },
    };
    const decoded = decode({ tools: [local, { type: 'shell', environment: null, name: 'plain' }] });
    expect(decoded.builtinTools?.map((entry) => entry.kind)).toEqual([undefined, undefined]);
    leaveOutBuiltins(decoded, new Set(['shell']));
    expect(decoded.warnings).toBeUndefined();
    expect(decoded.request.providerOptions?.['openai-responses']?.tools).toHaveLength(2);
  });

  it('a tool_choice naming shell goes with the hosted shell it would choose (the upstream is not given one)', () => {
    const decoded = decode({ tools: [hosted[0]], tool_choice: { type: 'shell' } });
    leaveOutBuiltins(decoded, new Set(['shell']));
    expect(decoded.request.providerOptions).toBeUndefined();
    expect(decoded.builtinTools).toBeUndefined();
    expect(decoded.warnings?.[1]).toMatch(/^tool_choice: built-in tool 'shell' is not offered to the model/);
  });

  it('an image_generation mask by file_id is a 400 naming it; by image_url it passes', () => {
    const error = (() => {
      try {
        decode({ tools: [{ type: 'image_generation', input_image_mask: { file_id: 'file-1' } }] });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(RequestFieldError);
    expect((error as RequestFieldError).field).toBe('tools.0.input_image_mask.file_id');
    expect((error as RequestFieldError).reason).toBe('unsupported');
    const mask = { type: 'image_generation', input_image_mask: { image_url: 'data:image/png;base64,AAAA' } };
    expect(decode({ tools: [mask] }).request.providerOptions).toEqual({
      'openai-responses': { tools: [mask] },
    });
  });
});
