/**
 * AWS partitions: a call goes to its region's partition's endpoint — China's under
 * `amazonaws.com.cn` (`bedrock-runtime.cn-north-1.amazonaws.com.cn`), GovCloud's and the commercial
 * regions' under `amazonaws.com` — whether the region is the adapter's or an ARN's, signed for that
 * region; an ARN whose partition is not its region's is refused before anything is sent.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import { listRecorded } from '../../../test/support/fixtures.ts';
import { controlPlaneOf } from './definition.ts';
import { createBedrock } from './index.ts';
import type { BedrockOptions } from './options.ts';

/** A recorded Converse reply, answered to every request. */
const reply = readFileSync(
  listRecorded('bedrock').find((path) => path.endsWith('/amazon-bedrock-text.json'))!,
  'utf8',
);

/** Completes `model` on an adapter with `options`; the URL and authorization the wire saw. */
async function sent(model: string, options: BedrockOptions = {}) {
  const seen: Array<{ url: string; authorization: string | null }> = [];
  const adapter = createBedrock({
    env: {},
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret-example' },
    maxRetries: 0,
    logger: silentLogger,
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      seen.push({ url: String(input), authorization: new Headers(init?.headers).get('authorization') });
      return new Response(reply, { headers: { 'content-type': 'application/json' } });
    }) as typeof fetch,
    ...options,
  });
  const result = await adapter
    .complete({
      model: `bedrock:${model}`,
      transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
      maxOutputTokens: 64,
    })
    .then(
      (response) => ({ response, error: undefined }),
      (error: unknown) => ({ response: undefined, error }),
    );
  return { ...result, seen };
}

const profile = (partition: string, region: string) =>
  `arn:${partition}:bedrock:${region}:123456789012:application-inference-profile/abc123`;

describe('AWS partitions', () => {
  it.each([
    ['aws-cn', 'cn-north-1', 'bedrock-runtime.cn-north-1.amazonaws.com.cn'],
    ['aws-cn', 'cn-northwest-1', 'bedrock-runtime.cn-northwest-1.amazonaws.com.cn'],
    ['aws-us-gov', 'us-gov-west-1', 'bedrock-runtime.us-gov-west-1.amazonaws.com'],
    ['aws', 'eu-west-3', 'bedrock-runtime.eu-west-3.amazonaws.com'],
  ])(
    "an %s ARN in %s, no region configured: sent to %s, signed for the ARN's region",
    async (partition, region, host) => {
      const { error, seen } = await sent(profile(partition, region));
      expect(error).toBeUndefined();
      expect(new URL(seen[0]!.url).host).toBe(host);
      expect(seen[0]!.authorization).toMatch(
        new RegExp(`Credential=AKIDEXAMPLE/\\d{8}/${region}/bedrock/aws4_request`),
      );
    },
  );

  it('a configured China region: its endpoint under amazonaws.com.cn', async () => {
    const { error, seen } = await sent('anthropic.claude-sonnet-4-5-20250929-v1:0', {
      region: 'cn-northwest-1',
    });
    expect(error).toBeUndefined();
    expect(new URL(seen[0]!.url).host).toBe('bedrock-runtime.cn-northwest-1.amazonaws.com.cn');
    expect(seen[0]!.authorization).toMatch(/\/cn-northwest-1\/bedrock\/aws4_request/);
  });

  it.each([
    ['aws', 'cn-north-1'],
    ['aws-cn', 'us-east-1'],
    ['aws-us-gov', 'us-east-1'],
    ['aws-iso', 'us-iso-east-1'],
  ])('an ARN of partition %s in %s is refused before anything is sent', async (partition, region) => {
    const { error, seen } = await sent(profile(partition, region));
    expect(error).toMatchObject({ errorClass: 'invalid_request', providerCode: 'invalid_region' });
    expect((error as Error).message).toContain(`partition "${partition}"`);
    expect(seen).toEqual([]);
  });

  it("the control plane of a China runtime host keeps China's suffix", () => {
    expect(controlPlaneOf('https://bedrock-runtime.cn-north-1.amazonaws.com.cn')).toBe(
      'https://bedrock.cn-north-1.amazonaws.com.cn',
    );
  });
});
