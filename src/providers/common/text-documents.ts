/**
 * Text documents (a `file` part of a `text/*` type: an Anthropic `document` of `source.type:
 * "text"`, a Gemini `inlineData` of `text/csv`, a Responses `input_file` of `text/plain`) for
 * upstreams whose file parts do not carry them or their name: Chat Completions takes PDF files
 * only, so the document goes as text; Gemini's `inlineData` has no name or context field, so they
 * go in a text part before it. Either way a header line names the document (its title, the file's
 * name, and an Anthropic document's `context`), which would otherwise be lost.
 */
import { normalizeMediaType } from '../../core/capabilities.ts';
import { documentContextKey } from '../../core/metadata.ts';
import type { FilePart } from '../../core/transcript.ts';
import type { ProviderContext } from './definition.ts';
import { locatePart } from './projection.ts';

/** Fatal: bytes that are not UTF-8 are no text to send (the part is dropped with a WARN). */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether the part is a text document (`text/*`). */
export function isTextDocument(part: FilePart): boolean {
  return normalizeMediaType(part.mimeType).startsWith('text/');
}

/**
 * The line naming a document, `Document: <title> (<context>)`, from its file name and an
 * Anthropic document's `context`; undefined when it has neither.
 */
export function documentHeader(part: FilePart): string | undefined {
  const context = part.metadata?.[documentContextKey];
  const described = typeof context === 'string' && context !== '' ? context : undefined;
  if (part.filename === undefined && described === undefined) return undefined;
  const title = part.filename ?? part.mimeType;
  return described === undefined ? `Document: ${title}` : `Document: ${title} (${described})`;
}

/**
 * An inline text document as text: its header line (`documentHeader`, else its type), a blank
 * line, its content. Undefined when the data is not inline or not UTF-8.
 */
export function documentText(part: FilePart): string | undefined {
  let bytes: Uint8Array;
  if (part.data.type === 'base64') bytes = Buffer.from(part.data.data, 'base64');
  else if (part.data.type === 'bytes') bytes = part.data.bytes;
  else return undefined;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return undefined;
  }
  return `${documentHeader(part) ?? `Document: ${part.mimeType}`}\n\n${text}`;
}

/** File name extensions of common text types, for a host that tells a file's type by its name. */
const textExtensions: Record<string, string> = {
  'text/plain': 'txt',
  'text/csv': 'csv',
  'text/tab-separated-values': 'tsv',
  'text/markdown': 'md',
  'text/html': 'html',
  'text/xml': 'xml',
  'text/css': 'css',
  'text/javascript': 'js',
};

/**
 * A document's file name with its type's extension, for OpenAI, which reads an `input_file`'s (or a
 * Chat `file`'s) type from its name: an Anthropic document's title is a name without one
 * (`Q3 Financial Report` → `Q3 Financial Report.pdf`, `notes` → `notes.txt`; none → `document.pdf`
 * / `document.txt`). A PDF's name must end in `.pdf` (`Report v1.2` is no PDF's name); a text
 * document's may end in any extension (`main.py`, `server.log`).
 */
export function documentFilename(part: FilePart): string {
  const type = normalizeMediaType(part.mimeType);
  const name = part.filename ?? 'document';
  if (type === 'application/pdf') return /\.pdf$/i.test(name) ? name : `${name}.pdf`;
  const extension = textExtensions[type] ?? 'txt';
  return /\.[A-Za-z0-9]+$/.test(name) ? name : `${name}.${extension}`;
}

/**
 * A WARN that a document's `context` (an Anthropic document's) is left out, for a provider whose
 * file part has no field for it and where it cannot go as text beside the file.
 */
export function warnDocumentContext(context: ProviderContext, part: FilePart): void {
  if (part.metadata?.[documentContextKey] === undefined) return;
  context.warn("left out a document's context: the provider's file part has no field for it", {
    ...locatePart(context, part),
  });
}
