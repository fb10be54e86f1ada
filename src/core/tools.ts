/** Tool specifications and tool choice. */
import type { JsonObject } from './json.ts';

/** A tool the model may call. */
export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the input object. */
  inputSchema: JsonObject;
  /** Optional JSON Schema of the output. */
  outputSchema?: JsonObject;
}

/** Whether and which tool the model must call. */
export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };
