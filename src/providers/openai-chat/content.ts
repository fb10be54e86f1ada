/** Canonical media and file parts → Chat Completions content parts (`image_url`, `input_audio`, `file`). */
import { imageDetailKey } from '../../core/metadata.ts';
import type { FilePart, MediaPart } from '../../core/transcript.ts';
import { base64Of, dataUrlOf } from '../openai/data-url.ts';
import type { ProviderContext } from '../common/definition.ts';
import { warnDroppedPart } from '../common/projection.ts';
import type { ChatContentPart } from './api.ts';
import {
  documentFilename,
  documentText,
  isTextDocument,
  warnDocumentContext,
} from '../common/text-documents.ts';

export { base64Of, dataUrlOf } from '../openai/data-url.ts';

const audioFormats: Record<string, 'wav' | 'mp3'> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
};

/**
 * Images become `image_url` (a URL or a base64 `data:` URL, with the part's `detail` when it has
 * one: {@link imageDetailKey}); wav/mp3 audio with inline data becomes
 * `input_audio`. Anything else (video, other audio formats, artifact handles the adapter cannot
 * resolve) is dropped with a WARN.
 */
export function convertMedia(part: MediaPart, context: ProviderContext): ChatContentPart | undefined {
  if (part.modality === 'image') {
    const url = dataUrlOf(part.data, part.mimeType);
    if (url === undefined) return warnDroppedPart(context, part, 'an image handle cannot be resolved');
    const detail = part.metadata?.[imageDetailKey];
    return { type: 'image_url', image_url: typeof detail === 'string' ? { url, detail } : { url } };
  }
  if (part.modality === 'audio') {
    const mime = part.mimeType.toLowerCase();
    const format = Object.hasOwn(audioFormats, mime) ? audioFormats[mime] : undefined;
    const data = base64Of(part.data);
    if (format === undefined || data === undefined) {
      return warnDroppedPart(context, part, `audio input must be inline wav or mp3, got ${part.mimeType}`);
    }
    return { type: 'input_audio', input_audio: { data, format } };
  }
  return warnDroppedPart(context, part, `${part.modality} input is not supported by chat completions`);
}

/**
 * PDFs with inline data become `file` parts (`file_data` is a base64 `data:` URL). Chat Completions
 * takes no other file type: an inline UTF-8 text document (`text/*`) goes as a text part, headed by
 * its title and context (`documentText`). A PDF's context has no field (WARN). File URLs and other
 * types are dropped with a WARN.
 */
export function convertFile(part: FilePart, context: ProviderContext): ChatContentPart | undefined {
  if (isTextDocument(part)) {
    const text = documentText(part);
    if (text === undefined) return warnDroppedPart(context, part, 'a text document must be inline UTF-8');
    return { type: 'text', text };
  }
  if (part.mimeType !== 'application/pdf') {
    return warnDroppedPart(context, part, `${part.mimeType} files are not supported by chat completions`);
  }
  const data = base64Of(part.data);
  if (data === undefined) return warnDroppedPart(context, part, 'a PDF must be inline (base64 or bytes)');
  warnDocumentContext(context, part);
  return {
    type: 'file',
    file: { filename: documentFilename(part), file_data: `data:application/pdf;base64,${data}` },
  };
}
