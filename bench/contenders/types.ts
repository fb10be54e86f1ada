/** The contract every contender family implements, and the skip signal for a missing one. */
import type { Delivery, Payload, Protocol, Scenario } from '../payloads.ts';

/** The five columns of the report: (a)…(e). */
export type ContenderId = 'raw-fetch' | 'sse-parse' | 'switchyard' | 'official-sdk' | 'ai-sdk';

/** One cell of the matrix: what to fetch and what it must decode to. */
export interface Target {
  protocol: Protocol;
  scenario: Scenario;
  delivery: Delivery;
  /** Server URL plus `/{delivery}/{scenario}`; each contender appends its protocol's API path. */
  root: string;
  payload: Payload;
}

/** What one run produced, checked against `payload.expected` after the timed window. */
export interface Outcome {
  /** The answer text (text scenario). */
  text: string;
  /** The parsed tool input (tool scenario). */
  toolInput: unknown;
  /** Events, chunks or parts the contender consumed. */
  events: number;
  /** Body bytes read (raw fetch only). */
  bytes?: number;
  /** `reader.read()` results seen (raw fetch only): how many pieces the body arrived in. */
  reads?: number;
}

/** A prepared client for one cell; `run()` is what gets timed. */
export interface Runner {
  run(): Promise<Outcome>;
  close(): Promise<void>;
}

/** One contender family for one protocol. */
export interface Contender {
  id: ContenderId;
  /** Column label, e.g. `@anthropic-ai/sdk`. */
  label: string;
  /** Creates the client for a cell (not timed). Throws `SkipContender` when it cannot run. */
  prepare(target: Target): Promise<Runner>;
}

/** Thrown by `prepare` when the contender cannot run here (e.g. the adapter is not written yet). */
export class SkipContender extends Error {
  override name = 'SkipContender';
}

/** The API path each protocol's requests go to, below `Target.root`. */
export function apiPath(protocol: Protocol, model: string): string {
  if (protocol === 'anthropic') return '/v1/messages';
  if (protocol === 'openai') return '/v1/chat/completions';
  if (protocol === 'responses') return '/v1/responses';
  return `/v1beta/models/${model}:streamGenerateContent?alt=sse`;
}
