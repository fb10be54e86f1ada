/** Reads live requests and responses into cassette shapes, redacting them on the way. */

import type { JsonValue } from '../../core/json.ts';
import {
  collectSecrets,
  createRedaction,
  type Redaction,
  redactChunks,
  redactHeaders,
  redactJson,
  redactText,
  redactUrl,
} from './redact.ts';
import { parseBodyText } from './stable-json.ts';
import type { CassetteRequest, CassetteResponse } from './types.ts';

/**
 * Response headers not stored: the body is stored decoded and may change length, hop-by-hop headers
 * describe the connection, and `date` would change every recording.
 */
const UNSTORED_RESPONSE_HEADERS = [
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'date',
];

/** A request as read before sending; redacted later, once the response's secrets are known too. */
export interface RequestSnapshot {
  method: string;
  url: string;
  headers: Headers;
  bodyText: string;
}

/** A response as read off the network, not yet redacted. */
export interface ResponseSnapshot {
  status: number;
  statusText: string;
  headers: Headers;
  /** The text of each network chunk, for streamed responses. */
  chunks?: string[];
  /** The whole body as text, for other responses that are valid UTF-8. */
  text?: string;
  /** The whole body as base64, for other responses that are not valid UTF-8. */
  base64?: string;
}

/** True for content types whose responses are stored chunk by chunk. */
export function isStreamedContentType(contentType: string | null): boolean {
  const type = (contentType ?? '').toLowerCase();
  return type.includes('text/event-stream') || type.includes('application/x-ndjson');
}

/** Reads `request` without consuming it (its body is read from a clone). */
export async function snapshotRequest(request: Request): Promise<RequestSnapshot> {
  const bodyText = request.body === null ? '' : await request.clone().text();
  return { method: request.method, url: request.url, headers: new Headers(request.headers), bodyText };
}

/** Reads the whole of `response`, which must be a copy the caller does not read (a clone). */
export async function snapshotResponse(response: Response): Promise<ResponseSnapshot> {
  const snapshot: ResponseSnapshot = {
    status: response.status,
    statusText: response.statusText,
    headers: new Headers(response.headers),
  };
  if (isStreamedContentType(response.headers.get('content-type'))) {
    snapshot.chunks = await readChunks(response.body);
    return snapshot;
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  try {
    snapshot.text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    snapshot.base64 = Buffer.from(bytes).toString('base64');
  }
  return snapshot;
}

/** Reads a body chunk by chunk; a stream that fails midway keeps the chunks read before. */
async function readChunks(body: ReadableStream<Uint8Array> | null): Promise<string[]> {
  const chunks: string[] = [];
  if (body === null) return chunks;
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (let result = await reader.read(); !result.done; result = await reader.read()) {
      const text = decoder.decode(result.value, { stream: true });
      if (text !== '') chunks.push(text);
    }
    const rest = decoder.decode();
    if (rest !== '') chunks.push(rest);
  } catch {
    // The caller sees the failure on its own branch; the cassette keeps what arrived.
  }
  return chunks;
}

/** Builds the redaction for one exchange: built-in patterns plus the secrets it carries. */
export function createExchangeRedaction(
  headerNames: ReadonlySet<string>,
  request: RequestSnapshot,
  response?: ResponseSnapshot,
): Redaction {
  const secrets = collectSecrets(request.headers, request.url, headerNames);
  if (response !== undefined) secrets.push(...collectSecrets(response.headers, '', headerNames, 'response'));
  return createRedaction(headerNames, secrets);
}

/** Converts a request snapshot to its stored, redacted form. */
export function convertRequest(snapshot: RequestSnapshot, redaction: Redaction): CassetteRequest {
  const request: CassetteRequest = {
    method: snapshot.method.toUpperCase(),
    url: redactUrl(snapshot.url, redaction),
    headers: redactHeaders(snapshot.headers, redaction, 'request'),
  };
  if (snapshot.bodyText !== '') request.body = redactJson(parseBodyText(snapshot.bodyText), redaction);
  return request;
}

/** Converts a response snapshot to its stored, redacted form. */
export function convertResponse(snapshot: ResponseSnapshot, redaction: Redaction): CassetteResponse {
  const headers = new Headers(snapshot.headers);
  for (const name of UNSTORED_RESPONSE_HEADERS) headers.delete(name);
  const response: CassetteResponse = {
    status: snapshot.status,
    ...(snapshot.statusText === '' ? {} : { statusText: snapshot.statusText }),
    headers: redactHeaders(headers, redaction, 'response'),
  };
  if (snapshot.chunks !== undefined) {
    response.chunks = redactChunks(snapshot.chunks, redaction);
  } else if (snapshot.base64 !== undefined) {
    response.body = snapshot.base64;
    response.encoding = 'base64';
  } else if (snapshot.text !== undefined && snapshot.text !== '') {
    response.body = convertResponseText(snapshot.text, headers.get('content-type'), redaction);
  }
  return response;
}

function convertResponseText(text: string, contentType: string | null, redaction: Redaction): JsonValue {
  const isJson = (contentType ?? '').toLowerCase().includes('json');
  return isJson ? redactJson(parseBodyText(text), redaction) : redactText(text, redaction);
}
