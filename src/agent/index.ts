/** `switchyard-ai/agent`: the provider-agnostic agent loop — tools, turns, recovery, budgets, approvals, interrupts. */
export { type Agent, type AgentRun, createAgent } from './agent.ts';
export {
  CancellationController,
  CancellationHandle,
  type InterruptReason,
  InterruptSignal,
  TurnCancellation,
} from './cancellation.ts';
export {
  type CompactionOptions,
  type CompactionStrategy,
  estimateTranscriptTokens,
  type StrategyContext,
} from './compaction.ts';
export {
  connectMcpTools,
  convertResult as convertMcpResult,
  type McpClient,
  type McpServerConfig,
  type McpToolOptions,
  type McpToolSource,
} from './mcp.ts';
export { isOverloadedError } from './model-call.ts';
export type { AgentOptions, ContinuedRun, RunOptions, TurnState } from './options.ts';
export { AgentStateError, approvalDigest, parseAgentState, stringifyAgentState } from './state.ts';
export {
  dropOldReasoning,
  keepLastTurns,
  renderForSummary,
  type SummarizeOptions,
  summarizeOldTurns,
} from './strategies.ts';
export type { AgentSpan, AgentTracer } from './telemetry.ts';
export { type ToolContext, type ToolReturn, toolOutput } from './tool.ts';
export { type Tool, tool, type ToolSchema } from '../schemas/structured.ts';
export { interruptedKey, interruptReasonKey } from './tool-runner.ts';
export {
  type AgentEvent,
  type AgentLoopEvent,
  type AgentOutcome,
  type AgentResult,
  type AgentState,
  agentOutcomes,
  type ApprovalDecision,
  type ModelChoice,
  type ModelClient,
  type ModelStream,
  type PendingApproval,
  type TurnRecord,
} from './types.ts';
