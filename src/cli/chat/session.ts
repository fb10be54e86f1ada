/**
 * One chat conversation, independent of the terminal: the canonical transcript, the model (swappable
 * between any two messages), the turns with their usage and cost, and each message run through the
 * agent loop over the front door — tools, approvals (`awaiting_approval` → `resume`), interrupts.
 */
import { createSession } from '../../core/adapter.ts';
import { ToolIdMap } from '../../core/tool-id-map.ts';
import type { Item, Part, Transcript } from '../../core/transcript.ts';
import { emptyUsage } from '../../core/usage.ts';
import { createAgent } from '../../agent/agent.ts';
import type { AnyAgentTool } from '../../agent/tool.ts';
import type { AgentEvent, AgentResult, ApprovalDecision, PendingApproval } from '../../agent/types.ts';
import type { ModelDescription, Switchyard } from '../../switchyard.ts';
import { estimateInterrupted } from './estimate.ts';
import { createConversationId } from './ids.ts';
import type { ChatStore, ConversationRecord, StoredTurn } from './store.ts';
import { pushAll } from '../../core/arrays.ts';

/** Where a running message reports: every event as it comes, and approval questions. */
export interface ChatView {
  event(event: AgentEvent): void;
  /** Asks about each pending call; resolves the decisions (`always` adds the tool to the allowed set). */
  approve(pending: PendingApproval[]): Promise<Record<string, 'yes' | 'no' | 'always'>>;
}

/** What one message produced. */
export interface Exchange {
  outcome: AgentResult['outcome'];
  /** The turns (model calls) of this message. */
  turns: StoredTurn[];
  error?: unknown;
}

/** What a session is made from. */
export interface ChatSessionOptions {
  sy: Switchyard;
  model: string;
  tools?: AnyAgentTool[];
  /** Tools approved with `a` (always) for the rest of the session. */
  allowed?: Set<string>;
  system?: string;
  maxOutputTokens?: number;
}

/** A chat conversation. */
export class ChatSession {
  readonly sy: Switchyard;
  id = createConversationId();
  name: string | undefined;
  createdAt = new Date().toISOString();
  transcript: Transcript = [];
  turns: StoredTurn[] = [];
  /** The model name as the user gave it (alias or id). */
  model: string;
  readonly allowed: Set<string>;
  /** The tools the model may call (MCP tools, connected after start-up). */
  tools: AnyAgentTool[];
  private readonly maxOutputTokens: number | undefined;
  private session = createSession();
  private running: { interrupt(reason?: string): void } | undefined;

  constructor(options: ChatSessionOptions) {
    this.sy = options.sy;
    this.model = options.model;
    this.tools = options.tools ?? [];
    this.allowed = options.allowed ?? new Set();
    this.maxOutputTokens = options.maxOutputTokens;
    if (options.system !== undefined) this.setSystem(options.system);
  }

  /** The resolved current model with its facts (throws the front door's classified error for an unknown name). */
  describe(name = this.model): ModelDescription {
    return this.sy.resolve(name);
  }

  /** Replaces (or adds) the system item. */
  setSystem(text: string): void {
    const item: Item = { kind: 'system', parts: [{ type: 'text', text }] };
    if (this.transcript[0]?.kind === 'system') this.transcript = [item, ...this.transcript.slice(1)];
    else this.transcript = [item, ...this.transcript];
  }

  get system(): string | undefined {
    const first = this.transcript[0];
    return first?.kind === 'system' && first.parts[0]?.type === 'text' ? first.parts[0].text : undefined;
  }

  /** Starts a new conversation (same model, same system prompt). */
  reset(): void {
    const system = this.system;
    this.id = createConversationId();
    this.name = undefined;
    this.createdAt = new Date().toISOString();
    this.transcript = [];
    this.turns = [];
    this.session = createSession();
    if (system !== undefined) this.setSystem(system);
  }

  /** Drops the last message and everything answering it; false when there is none. */
  undo(): boolean {
    const index = this.transcript.findLastIndex(
      (item) => item.kind === 'user' && item.metadata?.['switchyard.recovery'] === undefined,
    );
    if (index === -1) return false;
    this.transcript = this.transcript.slice(0, index);
    return true;
  }

  /** Restores a stored conversation (its transcript, turns and tool-id map). */
  restore(record: ConversationRecord): void {
    this.id = record.id;
    this.name = record.name;
    this.createdAt = record.createdAt;
    this.transcript = record.transcript;
    this.turns = record.turns;
    this.model = record.model;
    this.session = createSession(
      record.toolIds === undefined ? undefined : ToolIdMap.fromJSON(record.toolIds),
    );
  }

  /** The record to store. */
  toRecord(): ConversationRecord {
    const record: ConversationRecord = {
      id: this.id,
      title: titleOf(this.transcript),
      model: this.model,
      createdAt: this.createdAt,
      updatedAt: new Date().toISOString(),
      transcript: this.transcript,
      turns: this.turns,
      toolIds: this.session.toolIds.toJSON(),
    };
    if (this.name !== undefined) record.name = this.name;
    return record;
  }

  /** Saves into `store`; returns the error message when the store failed. */
  saveTo(store: ChatStore | undefined): string | undefined {
    if (store === undefined || this.transcript.every((item) => item.kind === 'system')) return undefined;
    try {
      store.save(this.toRecord());
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message.split('\n')[0] : String(error);
    }
  }

  /** Cancels the message being answered (the upstream call is aborted, the partial answer kept). */
  interrupt(): void {
    this.running?.interrupt('user');
  }

  /** Sends one message (text and attachments) and runs it to its end through the agent loop. */
  async send(parts: Part[], view: ChatView): Promise<Exchange> {
    const before = this.transcript;
    const modelId = this.describe().id;
    const agent = createAgent({
      client: this.sy,
      model: modelId,
      tools: this.tools,
      ...(this.maxOutputTokens === undefined ? {} : { maxOutputTokens: this.maxOutputTokens }),
    });
    const turns: StoredTurn[] = [];
    const options = { session: this.session };
    let run = agent.run([...before, { kind: 'user', parts }], options);
    for (;;) {
      this.running = run;
      let streamed = false;
      for await (const event of run) {
        view.event(event);
        if (event.type === 'turn-start') streamed = true;
        if (event.type === 'turn-end') {
          streamed = false;
          const turn: StoredTurn = {
            model: event.model,
            usage: event.usage,
            cost: event.usage.cost?.amount,
            at: new Date().toISOString(),
          };
          if (event.finishReason === 'cancelled') turn.interrupted = true;
          turns.push(turn);
        }
      }
      const result = await run.result();
      this.running = undefined;
      if (result.outcome === 'cancelled' && streamed)
        turns.push({
          model: modelId,
          usage: emptyUsage(),
          cost: undefined,
          at: new Date().toISOString(),
          interrupted: true,
        });
      const last = turns.at(-1);
      if (result.outcome === 'cancelled' && last?.interrupted === true)
        turns[turns.length - 1] = await estimateInterrupted(this.sy, last, result.transcript, this.tools);
      if (result.outcome === 'awaiting_approval' && result.state !== undefined) {
        const answers = await view.approve(result.pendingApprovals ?? []);
        const decisions: Record<string, ApprovalDecision> = {};
        for (const pending of result.pendingApprovals ?? []) {
          const answer = answers[pending.callId] ?? 'no';
          if (answer === 'always') this.allowed.add(pending.name);
          decisions[pending.callId] =
            answer === 'no' ? { approved: false, reason: 'declined at the prompt' } : true;
        }
        run = agent.resume(result.state, decisions, options);
        continue;
      }
      pushAll(this.turns, turns);
      const added = result.transcript.length > before.length + 1;
      if (result.outcome === 'error' && !added) this.transcript = before;
      else this.transcript = result.transcript;
      return { outcome: result.outcome, turns, error: result.error };
    }
  }
}

/** The first words of the first user message. */
export function titleOf(transcript: Transcript): string {
  const first = transcript.find((item) => item.kind === 'user');
  const text = first?.parts.find((part) => part.type === 'text')?.text ?? '';
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
