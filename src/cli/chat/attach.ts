/**
 * `/attach FILE`: an image, a PDF or a text file as a transcript part, checked against the model's
 * capabilities (the library's own pre-flight rule, `assertCapabilities`) before anything is sent.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { assertCapabilities } from '../../core/capability-check.ts';
import type { Part } from '../../core/transcript.ts';
import type { ModelDescription } from '../../switchyard.ts';

/** The largest file `/attach` reads. */
export const maxAttachmentBytes = 20 * 1024 * 1024;

/** Image types recognised by their first bytes. */
const signatures: Array<{ mimeType: string; bytes: number[]; offset?: number }> = [
  { mimeType: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47] },
  { mimeType: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { mimeType: 'image/gif', bytes: [0x47, 0x49, 0x46, 0x38] },
  { mimeType: 'image/webp', bytes: [0x57, 0x45, 0x42, 0x50], offset: 8 },
  { mimeType: 'image/tiff', bytes: [0x49, 0x49, 0x2a, 0x00] },
  { mimeType: 'image/tiff', bytes: [0x4d, 0x4d, 0x00, 0x2a] },
  { mimeType: 'application/pdf', bytes: [0x25, 0x50, 0x44, 0x46] },
];

/** An attachment ready to send, or why it cannot be. */
export type AttachmentResult = { ok: true; part: Part; label: string } | { ok: false; message: string };

function sniff(bytes: Uint8Array): string | undefined {
  return signatures.find(({ bytes: magic, offset = 0 }) =>
    magic.every((byte, index) => bytes[offset + index] === byte),
  )?.mimeType;
}

/** UTF-8 text without NUL bytes; `undefined` for anything else (binary). */
function asText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/** Reads `path` into a part: image and PDF as base64 data, text inline; binary files are refused. */
export async function readAttachment(path: string): Promise<AttachmentResult> {
  let bytes: Uint8Array;
  try {
    const info = await stat(path);
    if (!info.isFile()) return { ok: false, message: `${path} is not a file` };
    if (info.size > maxAttachmentBytes)
      return {
        ok: false,
        message: `${path} is ${size(info.size)}, over the ${size(maxAttachmentBytes)} limit`,
      };
    bytes = await readFile(path);
  } catch (error) {
    return { ok: false, message: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}` };
  }
  const name = basename(path);
  const mimeType = sniff(bytes);
  const data = { type: 'base64' as const, data: Buffer.from(bytes).toString('base64') };
  if (mimeType === 'application/pdf')
    return {
      ok: true,
      part: { type: 'file', mimeType, data, filename: name },
      label: `${name} (PDF, ${size(bytes.length)})`,
    };
  if (mimeType !== undefined)
    return {
      ok: true,
      part: { type: 'media', modality: 'image', mimeType, data },
      label: `${name} (${mimeType}, ${size(bytes.length)})`,
    };
  const text = asText(bytes);
  if (text === undefined)
    return {
      ok: false,
      message: `${name} is a binary file: only images, PDF and text files can be attached`,
    };
  return {
    ok: true,
    part: { type: 'text', text: `<file name="${name}">\n${text}\n</file>` },
    label: `${name} (text, ${size(bytes.length)})`,
  };
}

/** Why `model` cannot take `part`, or `undefined` when it can. */
export function refusal(part: Part, model: ModelDescription): string | undefined {
  try {
    assertCapabilities(
      { model: model.id, transcript: [{ kind: 'user', parts: [part] }], maxOutputTokens: 1 },
      { ...model.facts, systemPrompt: true },
      { provider: model.provider, model: model.id },
    );
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
