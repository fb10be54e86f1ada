/** Turns recorded fixture files (`.json`, `.chunks.txt`, `.sse`) into response plans. */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  createBytesPlan,
  createEventStreamPlan,
  createJsonPlan,
  createStreamPlan,
  eventStreamHeaders,
  type ResponsePlan,
  splitRawSse,
  type WireFrame,
} from './frames.ts';
import { emulatorProtocols } from './protocols.ts';
import { inferProtocolFromFile } from './routing.ts';
import type { EmulatorProtocolId, ReplayScript } from './types.ts';
import { parseJson } from '../../core/json-text.ts';

function eventType(line: string): string | undefined {
  try {
    const payload: unknown = parseJson(line);
    if (
      typeof payload === 'object' &&
      payload !== null &&
      'type' in payload &&
      typeof payload.type === 'string'
    ) {
      return payload.type;
    }
  } catch {
    // A line that is not JSON is replayed without an `event:` line.
  }
  return undefined;
}

/**
 * Frames one `.chunks.txt` file: each non-empty line becomes `data: <line>\n\n`; Anthropic and OpenAI
 * Responses also get `event: <payload.type>`; OpenAI Chat ends with `data: [DONE]`.
 */
export function framesFromChunks(text: string, protocol: EmulatorProtocolId): WireFrame[] {
  const { namedEvents: named, doneData, eventStream } = emulatorProtocols[protocol];
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (eventStream === 'converse') return lines.map(converseFrame);
  if (eventStream === 'chunk')
    return lines.map((line) => ({
      event: 'chunk',
      data: JSON.stringify({ bytes: Buffer.from(line, 'utf8').toString('base64') }),
    }));
  const frames: WireFrame[] = lines.map((line) => {
    const event = named ? eventType(line) : undefined;
    return event === undefined ? { data: line } : { event, data: line };
  });
  if (doneData !== undefined) frames.push({ data: doneData });
  return frames;
}

/**
 * One Converse `.chunks.txt` line, `{"<eventType>": payload}`, as an event-stream frame: the key is
 * the `:event-type` (an `…Exception` key an exception message), the payload the message body. A
 * line that is not such an object goes out as a `chunk` event carrying the line.
 */
function converseFrame(line: string): WireFrame {
  let parsed: unknown;
  try {
    parsed = parseJson(line);
  } catch {
    return { event: 'chunk', data: line };
  }
  const entries = typeof parsed === 'object' && parsed !== null ? Object.entries(parsed) : [];
  if (entries.length !== 1) return { event: 'chunk', data: line };
  const [type, payload] = entries[0] as [string, unknown];
  const event = /Exception$/.test(type) ? `exception:${type}` : type;
  return { event, data: JSON.stringify(payload) };
}

/** Resolves a replay script's file to a path. */
export function replayPath(file: string | URL): string {
  return file instanceof URL ? fileURLToPath(file) : file;
}

/** Reads the script's file and builds its plan; `requestProtocol` is used when the script names no protocol. */
export async function createReplayPlan(
  script: ReplayScript,
  requestProtocol: EmulatorProtocolId | undefined,
): Promise<ResponsePlan> {
  const path = replayPath(script.file);
  const text = await readFile(path, 'utf8');
  const status = script.status ?? 200;
  const headers = script.headers ?? {};
  if (path.endsWith('.sse')) return createStreamPlan(splitRawSse(text), status, headers);
  if (path.endsWith('.eventstream.base64.txt'))
    return createBytesPlan(Buffer.from(text.trim(), 'base64'), { ...eventStreamHeaders, ...headers }, status);
  if (path.endsWith('.chunks.txt')) {
    const protocol = script.protocol ?? requestProtocol ?? inferProtocolFromFile(path);
    const frames = framesFromChunks(text, protocol);
    return emulatorProtocols[protocol].eventStream === undefined
      ? createStreamPlan(frames, status, headers)
      : createEventStreamPlan(frames, status, headers);
  }
  return createJsonPlan(status, text, headers);
}
