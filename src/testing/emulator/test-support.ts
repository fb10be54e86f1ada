/** Helpers for the emulator's own tests: fixture paths, request headers, SSE parsing, raw body reads. */
import { join } from 'node:path';
import { recordedDir } from '../../../test/support/fixtures.ts';

/** Absolute path of a recorded fixture under test/fixtures/recorded. */
export function fixture(relativePath: string): string {
  return join(recordedDir, relativePath);
}

/** Headers that satisfy the Anthropic rules. */
export const anthropicHeaders = {
  'content-type': 'application/json',
  'x-api-key': 'sk-ant-test',
  'anthropic-version': '2023-06-01',
};

/** Headers that satisfy the OpenAI rules. */
export const openaiHeaders = { 'content-type': 'application/json', authorization: 'Bearer sk-test' };

/** Headers that satisfy the Gemini rules. */
export const geminiHeaders = { 'content-type': 'application/json', 'x-goog-api-key': 'gemini-test' };

/** A minimal valid Anthropic request body. */
export function anthropicBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'claude-sonnet-4-5-20250929',
    max_tokens: 256,
    messages: [{ role: 'user', content: 'Hello' }],
    ...extra,
  };
}

/** POSTs `body` as JSON. */
export function postJson(url: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
}

/** One parsed SSE frame. */
export interface ParsedFrame {
  event?: string;
  data: string;
}

/** Parses SSE text into frames (`event:` and `data:` lines; multi-line data joined with `\n`). */
export function parseSse(text: string): ParsedFrame[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const frame: ParsedFrame = { data: '' };
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith('event:')) frame.event = line.slice(6).trim();
        if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      frame.data = data.join('\n');
      return frame;
    });
}

/** Parses every frame's data as JSON, skipping `[DONE]`. */
export function payloads(frames: ParsedFrame[]): Array<Record<string, unknown>> {
  return frames.filter((frame) => frame.data !== '[DONE]').map((frame) => JSON.parse(frame.data));
}

/** The outcome of reading a body to its end or its failure. */
export interface RawRead {
  bytes: Buffer;
  reads: number;
  error: unknown;
}

/** Reads a response body chunk by chunk, keeping what arrived before any error. */
export async function readRaw(response: Response): Promise<RawRead> {
  const chunks: Uint8Array[] = [];
  let error: unknown;
  const reader = response.body?.getReader();
  try {
    for (;;) {
      const result = await reader?.read();
      if (result === undefined || result.done) break;
      chunks.push(result.value);
    }
  } catch (caught) {
    error = caught;
  }
  return { bytes: Buffer.concat(chunks), reads: chunks.length, error };
}
