/**
 * Where a client's media may point. A media or file part given by URI reaches the upstream as a
 * URI for the provider (or a server it reaches) to fetch: an `s3://` or `gs://` URI is read by
 * Bedrock or Vertex with the operator's own cloud identity, and `file:`, `gopher:` or `ftp:` reach
 * self-hosted servers that fetch URLs themselves. So a client's URI is http(s) or `data:` unless the
 * operator allows more schemes (`gateway.media_uri_schemes`), and a `handle` (a key into the host's
 * own artifact store) is never taken from a client. Nor is a Gemini Files API URI
 * (`https://generativelanguage.googleapis.com/v1beta/files/<name>`, what `files.upload` returns): the
 * Gemini API reads it from the project of the key that calls, the operator's, so one client could
 * name another's upload — refused as OpenAI and Anthropic file ids are. A provider's own (`custom`)
 * part is held to the same rules for every URI string in it. Checked once on the canonical request,
 * so every route and protocol (WebSocket and the native stream included) is held to it.
 */
import type { Item, Part } from '../core/transcript.ts';
import { sentFieldOf } from '../codecs/common.ts';
import { RequestFieldError } from '../codecs/fields.ts';
import { GatewayError } from './errors.ts';

/** The schemes every gateway takes. */
const baseSchemes = ['http', 'https', 'data'];

/** The schemes a client's media URIs may use: the base ones and the operator's `extra`. */
export function mediaSchemes(extra: readonly string[] = []): ReadonlySet<string> {
  return new Set([...baseSchemes, ...extra.map((scheme) => scheme.toLowerCase())]);
}

const refused = (message: string) =>
  new GatewayError({ status: 400, errorClass: 'invalid_request', message });

/**
 * Whether `uri` is on the Gemini API's own host (`generativelanguage.googleapis.com`, or its mTLS
 * name), which serves nothing a model reads but the Files API's files of the calling key's project.
 * The whole host, not only `/files/` paths: any API version, and a path spelled with escapes
 * (`/v1beta/%66iles/…`) that Google decodes, are the same file.
 */
function isGeminiFilesUri(uri: string): boolean {
  if (!/^https?:/i.test(uri)) return false;
  let host: string;
  try {
    host = new URL(uri).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return false;
  }
  return host === 'generativelanguage.googleapis.com' || host === 'generativelanguage.mtls.googleapis.com';
}

const geminiFilesRefusal =
  'a Gemini Files API URI is not supported by the gateway: it names a file uploaded to the ' +
  "operator's project (send the data inline or by a public URL)";

/**
 * A string that names a resource by URI: `scheme://…`, or `file:/…` (a file URI may have one
 * slash). Text that merely begins `file: notes` is no URI.
 */
const uriLike = /^(?:([a-z][a-z0-9+.-]*):\/\/|(file):\/)/i;

/**
 * A provider's own part as the client sent it (`custom`: reaches an adapter of that provider as it
 * is, e.g. Gemini `fileData` or Bedrock `s3Location`): every string in it that names a resource
 * by URI is held to the same schemes as a media part's.
 */
function checkRawData(data: unknown, schemes: ReadonlySet<string>): void {
  const pending: unknown[] = [data];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      const match = uriLike.exec(value);
      const scheme = (match?.[1] ?? match?.[2])?.toLowerCase();
      if (isGeminiFilesUri(value)) throw refused(geminiFilesRefusal);
      if (scheme !== undefined && !schemes.has(scheme))
        throw refused(
          `a URI in a provider part must be ${[...schemes].join(', ')} (not '${scheme.slice(0, 20)}:')` +
            ': the operator allows more with gateway.media_uri_schemes',
        );
    } else if (typeof value === 'object' && value !== null)
      // One at a time: a spread of a huge array would overflow the call's arguments.
      for (const child of Array.isArray(value) ? (value as unknown[]) : Object.values(value))
        pending.push(child);
  }
}

/** Throws a 400 when a media or file part of `transcript` points where a client's may not. */
export function checkMediaUris(transcript: readonly Item[], schemes: ReadonlySet<string>): void {
  const pending: Part[][] = transcript.map((item) => item.parts);
  for (let parts = pending.pop(); parts !== undefined; parts = pending.pop()) {
    for (const part of parts) {
      if (part.type === 'tool-result') {
        if (part.output.type === 'parts') pending.push(part.output.parts);
        continue;
      }
      if (part.type === 'custom') {
        checkRawData(part.data, schemes);
        continue;
      }
      if (part.type !== 'media' && part.type !== 'file') continue;
      const { data } = part;
      if (data.type === 'handle')
        throw refused(
          'a media or file handle is not accepted from a client: send the data or an http(s) URL',
        );
      if (data.type !== 'uri') continue;
      const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(data.uri)?.[1]?.toLowerCase();
      if (scheme === undefined || !schemes.has(scheme))
        throw refused(
          `a media or file URI must be ${[...schemes].join(', ')}` +
            (scheme === undefined ? ' (this one has no scheme)' : ` (not '${scheme.slice(0, 20)}:')`) +
            ': the operator allows more with gateway.media_uri_schemes',
        );
      if (isGeminiFilesUri(data.uri)) {
        const field = sentFieldOf(part);
        throw field === undefined
          ? refused(geminiFilesRefusal)
          : new RequestFieldError(field, `${field}: ${geminiFilesRefusal}`, 'unsupported');
      }
    }
  }
}
