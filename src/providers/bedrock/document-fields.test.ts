/**
 * A document's `context` and citation setting (an Anthropic client's document `context` and
 * `citations: {enabled: true}`, carried as `switchyard.document_*` metadata) reach a Claude model on
 * Converse as the DocumentBlock's own `context` and `citations.enabled`; other families, for which AWS
 * documents no document citations, get the document alone.
 */
import { describe, expect, it } from 'vitest';
import { documentCitationsKey, documentContextKey } from '../../core/metadata.ts';
import type { Item } from '../../core/transcript.ts';
import { capabilitiesFor } from './capabilities.ts';
import { buildRequest } from './request.ts';
import { createTestContext } from './test-support.ts';

const pdf = Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64');
const transcript: Item[] = [
  {
    kind: 'user',
    parts: [
      {
        type: 'file',
        mimeType: 'application/pdf',
        data: { type: 'base64', data: pdf },
        filename: 'Annual report',
        metadata: { [documentContextKey]: 'Written by the finance team', [documentCitationsKey]: true },
      },
      { type: 'text', text: 'Summarize.' },
    ],
  },
];

function documentFor(model: string): unknown {
  const context = createTestContext('bedrock', model, capabilitiesFor(model));
  const body = buildRequest({ model: `bedrock:${model}`, transcript, maxOutputTokens: 1024 }, context)
    .body as { messages: Array<{ content: Array<{ document?: unknown }> }> };
  return body.messages[0]!.content[0]!.document;
}

describe('Bedrock: a document’s context and citation setting', () => {
  it('Claude gets them as the DocumentBlock’s context and citations', () => {
    expect(documentFor('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toEqual({
      format: 'pdf',
      name: 'Annual report',
      source: { bytes: pdf },
      context: 'Written by the finance team',
      citations: { enabled: true },
    });
  });

  it('another family gets the document alone', () => {
    expect(documentFor('amazon.nova-pro-v1:0')).toEqual({
      format: 'pdf',
      name: 'Annual report',
      source: { bytes: pdf },
    });
  });
});
