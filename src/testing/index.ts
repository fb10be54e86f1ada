/** Test kit: the conformance suite, stream invariants, a scripted in-memory adapter, the provider emulator and cassettes. */
export { type CollectedStream, collectStream } from './collect.ts';
export {
  type AdapterSuiteOptions,
  type AdapterSuiteSettings,
  type MemoryLogger,
  registeredCases,
  runAdapterSuite,
  type SuiteCase,
  type SuiteCaseName,
  suiteCaseNames,
  suiteCases,
  type SuiteContext,
  type TestHarness,
} from './conformance/index.ts';

export {
  API_KEY_PATTERNS,
  type Cassette,
  type CassetteExchange,
  CassetteMismatchError,
  type CassetteOptions,
  createCassette,
  createLineDiff,
  isCassetteMismatchError,
  matchesRedacted,
  matchRequest,
  REDACTED,
} from './cassette/index.ts';
export {
  anthropicError,
  type ChatReasoningField,
  type Emulator,
  type EmulatorProtocolId,
  emulatorProtocolIds,
  type EmulatorFault,
  type EmulatorScript,
  googleError,
  isEmulatorProtocolId,
  openaiError,
  type EmulatorOptions,
  protocolError,
  protocolErrors,
  type RecordedRequest,
  type ResponseErrorClass,
  responseErrorClasses,
  type ServedRequest,
  startEmulator,
} from './emulator/index.ts';
export {
  assertStreamInvariants,
  findStreamViolations,
  findUsageViolations,
  StreamInvariantError,
} from './invariants.ts';
export {
  allCapabilities,
  createScriptedAdapter,
  type ScriptedAdapter,
  type ScriptedResponse,
} from './scripted-adapter.ts';
