/** Canonical media and file parts → Chat Completions content parts (`image_url`, `input_audio`, `file`). */
import type { FilePart, MediaPart } from '../../core/transcript.ts';
import { base64Of, dataUrlOf } from '../openai/data-url.ts';
import type { ProviderContext } from '../shared/definition.ts';
import type { ChatContentPart } from './api.ts';

export { base64Of, dataUrlOf } from '../openai/data-url.ts';

const audioFormats: Record<string, 'wav' | 'mp3'> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
};

/** Where a part sits in the transcript, for WARN entries. */
export interface PartLocation {
  itemIndex: number;
  partIndex: number;
}

function dropped(
  context: ProviderContext,
  location: PartLocation,
  blockType: string,
  reason: string,
): undefined {
  context.warn('dropped a part the provider cannot take', { ...location, blockType, reason });
  return undefined;
}

/**
 * Images become `image_url` (a URL or a base64 `data:` URL); wav/mp3 audio with inline data becomes
 * `input_audio`. Anything else (video, other audio formats, artifact handles the adapter cannot
 * resolve) is dropped with a WARN.
 */
export function convertMedia(
  part: MediaPart,
  context: ProviderContext,
  location: PartLocation,
): ChatContentPart | undefined {
  if (part.modality === 'image') {
    const url = dataUrlOf(part.data, part.mimeType);
    if (url === undefined) return dropped(context, location, 'media', 'an image handle cannot be resolved');
    return { type: 'image_url', image_url: { url } };
  }
  if (part.modality === 'audio') {
    const format = audioFormats[part.mimeType.toLowerCase()];
    const data = base64Of(part.data);
    if (format === undefined || data === undefined) {
      return dropped(
        context,
        location,
        'media',
        `audio input must be inline wav or mp3, got ${part.mimeType}`,
      );
    }
    return { type: 'input_audio', input_audio: { data, format } };
  }
  return dropped(context, location, 'media', `${part.modality} input is not supported by chat completions`);
}

/**
 * PDFs with inline data become `file` parts (`file_data` is a base64 `data:` URL). Chat Completions
 * takes no file URLs and no other file types: those are dropped with a WARN.
 */
export function convertFile(
  part: FilePart,
  context: ProviderContext,
  location: PartLocation,
): ChatContentPart | undefined {
  if (part.mimeType !== 'application/pdf') {
    return dropped(context, location, 'file', `${part.mimeType} files are not supported by chat completions`);
  }
  const data = base64Of(part.data);
  if (data === undefined) return dropped(context, location, 'file', 'a PDF must be inline (base64 or bytes)');
  return {
    type: 'file',
    file: { filename: part.filename ?? 'document.pdf', file_data: `data:application/pdf;base64,${data}` },
  };
}
