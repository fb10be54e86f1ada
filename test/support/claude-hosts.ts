/**
 * Claude on each of its hosts, every adapter on the emulator at `root()` (read when an adapter is
 * made, so it may be an emulator started in `beforeAll`): the Anthropic API, Vertex, and Bedrock by
 * each protocol in `bedrock`. Rows for `describe.each`: the host's name, its model id, the adapter.
 */
import type { Adapter } from '../../src/core/adapter.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import { createBedrock } from '../../src/providers/bedrock/index.ts';
import { createVertex } from '../../src/providers/vertex/index.ts';
import { emulatorBaseURL } from './provider-types.ts';

export type ClaudeHost = [name: string, model: string, create: () => Adapter];

export function claudeHosts(root: () => string, bedrock: readonly ('invoke' | 'converse')[]): ClaudeHost[] {
  return [
    [
      'the Anthropic API',
      'anthropic:claude-sonnet-4-5',
      () =>
        createAnthropic({
          baseURL: emulatorBaseURL('anthropic', root()),
          apiKey: 'anthropic-key-0123',
          maxRetries: 0,
          logger: silentLogger,
          env: {},
        }),
    ],
    [
      'Vertex',
      'vertex:claude-sonnet-4-5@20250929',
      () =>
        createVertex({
          project: 'my-project',
          location: 'us-east5',
          baseURL: emulatorBaseURL('vertex', root()),
          getAccessToken: async () => 'ya29.claude-hosts',
          maxRetries: 0,
          logger: silentLogger,
          env: {},
        }),
    ],
    ...bedrock.map((protocol): ClaudeHost => [
      `Bedrock (${protocol})`,
      'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      () =>
        createBedrock({
          apiKey: 'bedrock-bearer-0123',
          baseURL: root(),
          region: 'us-east-1',
          protocol,
          maxRetries: 0,
          logger: silentLogger,
          env: {},
        }),
    ]),
  ];
}
