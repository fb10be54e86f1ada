/** The minimal per-event work a hand-written client does: the floor (b) and the official SDKs (d) share it. */
import type { Protocol } from '../payloads.ts';
import type { Outcome } from './types.ts';

/** One Gemini `functionCall.partialArgs` entry. */
interface PartialArg {
  jsonPath: string;
  stringValue?: string;
  numberValue?: number;
  boolValue?: boolean;
  nullValue?: unknown;
  willContinue?: boolean;
}

type Container = Record<string, unknown> | unknown[];

// `any` on purpose: the same code reads wire JSON and the SDKs' typed objects of identical shape,
// and checks each field it uses.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Wire = any;

const pathSegment = /\.([^.[\]]+)|\[(\d+)\]/g;

/** Applies one streamed partial argument (`$.rows[3].name` += "…") to `root`. */
export function applyPartialArg(root: Record<string, unknown>, arg: PartialArg): void {
  const segments: Array<string | number> = [];
  for (const match of arg.jsonPath.matchAll(pathSegment))
    segments.push(match[1] !== undefined ? match[1] : Number(match[2]));
  let container: Container = root;
  for (let index = 0; index < segments.length - 1; index++) {
    const key = segments[index] as string | number;
    const holder = container as Record<string | number, unknown>;
    let next = holder[key] as Container | undefined;
    if (next === undefined) {
      next = typeof segments[index + 1] === 'number' ? [] : {};
      holder[key] = next;
    }
    container = next;
  }
  const last = segments[segments.length - 1] as string | number;
  const holder = container as Record<string | number, unknown>;
  if (arg.stringValue !== undefined) {
    const existing = holder[last];
    holder[last] = typeof existing === 'string' ? existing + arg.stringValue : arg.stringValue;
  } else if (arg.numberValue !== undefined) holder[last] = arg.numberValue;
  else if (arg.boolValue !== undefined) holder[last] = arg.boolValue;
  else if (arg.nullValue !== undefined) holder[last] = null;
}

/** Collects the text and tool input from decoded events, the way a careful hand-written client would. */
export class Collector {
  private readonly texts: string[] = [];
  private readonly fragments: string[] = [];
  private args: Record<string, unknown> | undefined;
  private events = 0;
  private readonly protocol: Protocol;

  constructor(protocol: Protocol) {
    this.protocol = protocol;
  }

  /** Feeds one decoded event (wire JSON or the SDK's object of the same shape). */
  add(event: Wire): void {
    this.events++;
    if (this.protocol === 'anthropic') this.anthropic(event);
    else if (this.protocol === 'openai') this.openai(event);
    else if (this.protocol === 'responses') this.responses(event);
    else this.gemini(event);
  }

  private anthropic(event: Wire): void {
    if (event.type !== 'content_block_delta') return;
    const delta = event.delta;
    if (delta.type === 'text_delta') this.texts.push(delta.text);
    else if (delta.type === 'input_json_delta') this.fragments.push(delta.partial_json);
  }

  private openai(chunk: Wire): void {
    const delta = chunk.choices?.[0]?.delta;
    if (delta === undefined) return;
    if (typeof delta.content === 'string' && delta.content !== '') this.texts.push(delta.content);
    const calls = delta.tool_calls;
    if (calls !== undefined && calls !== null) {
      for (const call of calls) {
        const fragment = call.function?.arguments;
        if (typeof fragment === 'string' && fragment !== '') this.fragments.push(fragment);
      }
    }
  }

  private responses(event: Wire): void {
    if (event.type === 'response.output_text.delta') this.texts.push(event.delta);
    else if (event.type === 'response.function_call_arguments.delta') this.fragments.push(event.delta);
  }

  private gemini(chunk: Wire): void {
    const parts = chunk.candidates?.[0]?.content?.parts;
    if (parts === undefined) return;
    for (const part of parts) {
      if (typeof part.text === 'string') {
        if (part.text !== '') this.texts.push(part.text);
        continue;
      }
      const call = part.functionCall;
      if (call === undefined) continue;
      if (call.args !== undefined) this.args = call.args;
      else if (call.partialArgs !== undefined) {
        this.args ??= {};
        for (const arg of call.partialArgs) applyPartialArg(this.args, arg);
      }
    }
  }

  /** The text joined once, and the tool input parsed once. */
  finish(): Outcome {
    const toolInput = this.fragments.length > 0 ? JSON.parse(this.fragments.join('')) : this.args;
    return { text: this.texts.join(''), toolInput, events: this.events };
  }
}
