/** `listModels()` asks Bedrock's control-plane host (where ListFoundationModels lives), not the runtime host. */
import { describe, expect, it } from 'vitest';
import { controlPlaneOf } from './definition.ts';
import { createBedrock } from './index.ts';

describe('Bedrock listModels', () => {
  it('goes to bedrock.{region}.amazonaws.com, signed for that host, and reads the model summaries', async () => {
    const seen: Array<{ url: string; authorization: string | null }> = [];
    const adapter = createBedrock({
      region: 'eu-west-3',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret-example' },
      fetch: (async (input: string | URL | Request, init?: RequestInit) => {
        seen.push({
          url: String(input instanceof Request ? input.url : input),
          authorization: new Headers(init?.headers).get('authorization'),
        });
        return Response.json({
          modelSummaries: [{ modelId: 'anthropic.claude-sonnet-4-5', modelName: 'Claude' }],
        });
      }) as typeof fetch,
    });
    const models = await adapter.listModels();
    expect(seen[0]?.url).toBe('https://bedrock.eu-west-3.amazonaws.com/foundation-models');
    expect(seen[0]?.authorization).toMatch(/Credential=AKIDEXAMPLE\/\d{8}\/eu-west-3\/bedrock\/aws4_request/);
    expect(models).toEqual([
      {
        id: 'bedrock:anthropic.claude-sonnet-4-5',
        name: 'anthropic.claude-sonnet-4-5',
        displayName: 'Claude',
      },
    ]);
  });

  it('keeps a configured base URL that is not the AWS runtime host (a proxy, a VPC endpoint)', () => {
    expect(controlPlaneOf('https://bedrock-runtime.us-east-1.amazonaws.com')).toBe(
      'https://bedrock.us-east-1.amazonaws.com',
    );
    expect(controlPlaneOf('https://vpce-1.bedrock-runtime.us-east-1.vpce.amazonaws.com')).toBe(
      'https://vpce-1.bedrock-runtime.us-east-1.vpce.amazonaws.com',
    );
    expect(controlPlaneOf('http://127.0.0.1:4010')).toBe('http://127.0.0.1:4010');
  });
});
