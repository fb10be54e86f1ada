/**
 * `listModels()` calls the documented `publishers.models.list` (`GET /v1beta1/publishers/google/models`,
 * no project or location in the path), not a per-project v1 path that method does not have.
 */
import { describe, expect, it } from 'vitest';
import { modelListBaseOf } from './definition.ts';
import { createVertex } from './index.ts';

describe('Vertex listModels', () => {
  it('asks the location host’s v1beta1 publishers.models.list and reads publisherModels', async () => {
    const seen: string[] = [];
    const adapter = createVertex({
      project: 'my-project',
      location: 'us-east5',
      getAccessToken: async () => 'ya29.list-models-test-token',
      fetch: (async (input: string | URL | Request) => {
        seen.push(String(input instanceof Request ? input.url : input));
        return Response.json({ publisherModels: [{ name: 'publishers/google/models/gemini-2.5-flash' }] });
      }) as typeof fetch,
    });
    const models = await adapter.listModels();
    expect(seen).toEqual(['https://us-east5-aiplatform.googleapis.com/v1beta1/publishers/google/models']);
    expect(models).toEqual([{ id: 'vertex:gemini-2.5-flash', name: 'gemini-2.5-flash' }]);
  });

  it('the global and express endpoints map to their v1beta1 root; another base URL is kept', () => {
    expect(modelListBaseOf('https://aiplatform.googleapis.com/v1/projects/p/locations/global')).toBe(
      'https://aiplatform.googleapis.com/v1beta1',
    );
    expect(modelListBaseOf('https://aiplatform.googleapis.com/v1')).toBe(
      'https://aiplatform.googleapis.com/v1beta1',
    );
    expect(modelListBaseOf('http://127.0.0.1:4010/v1/projects/p/locations/l')).toBe(
      'http://127.0.0.1:4010/v1/projects/p/locations/l',
    );
  });
});
