/** The public conformance suite against the Bedrock adapter: Converse (event-stream) and Claude through InvokeModel. */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createBedrock } from '../../src/providers/bedrock/index.ts';
import { runAdapterSuite } from '../../src/testing/index.ts';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE0000000000',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

runAdapterSuite({
  name: 'bedrock converse',
  protocol: 'bedrock-converse',
  model: 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  harness: { describe, it, beforeAll, afterAll },
  // SigV4-signed (static keys): the emulator checks the header's shape.
  createAdapter: (url, settings) =>
    createBedrock({ ...settings, region: 'us-east-1', credentials, env: {}, baseURL: url }),
});

runAdapterSuite({
  name: 'bedrock invoke (anthropic)',
  protocol: 'bedrock-invoke',
  model: 'bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0',
  harness: { describe, it, beforeAll, afterAll },
  createAdapter: (url, settings) =>
    createBedrock({
      ...settings,
      protocol: 'invoke',
      region: 'us-east-1',
      credentials,
      env: {},
      baseURL: url,
    }),
});
