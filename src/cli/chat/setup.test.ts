/** The commands' transport: Node's fetch (no undici at start-up) unless a proxy variable needs the pooled transport. */
import { describe, expect, it } from 'vitest';
import { commandFetch } from './setup.ts';

describe("the commands' transport", () => {
  it("is Node's built-in fetch without a proxy variable", () => {
    expect(commandFetch({})).toBe(globalThis.fetch);
    expect(commandFetch({ HTTPS_PROXY: '  ', NO_PROXY: 'localhost' })).toBe(globalThis.fetch);
  });

  it('is the default (undici) transport, which honours them, when a proxy variable is set', () => {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'])
      expect(commandFetch({ [name]: 'http://proxy.example:3128' }), name).toBeUndefined();
  });
});
