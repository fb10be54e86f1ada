/** Test kit: stream invariants, a scripted in-memory adapter, the provider emulator and cassettes. */
export { type CollectedStream, collectStream } from './collect.ts';

export {
  API_KEY_PATTERNS,
  type Cassette,
  type CassetteExchange,
  CassetteMismatchError,
  type CassetteOptions,
  createCassette,
  createLineDiff,
  isCassetteMismatchError,
  matchRequest,
  REDACTED,
} from './cassette/index.ts';
export {
  anthropicError,
  type Emulator,
  type EmulatorApi,
  type EmulatorFault,
  type EmulatorScript,
  googleError,
  openaiError,
  type EmulatorOptions,
  type RecordedRequest,
  type ServedRequest,
  startEmulator,
} from './emulator/index.ts';
export { assertStreamInvariants, findStreamViolations, StreamInvariantError } from './invariants.ts';
export {
  allCapabilities,
  createScriptedAdapter,
  type ScriptedAdapter,
  type ScriptedResponse,
} from './scripted-adapter.ts';
