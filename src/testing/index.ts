/** Test kit: stream invariants, a scripted in-memory adapter, the provider emulator and cassettes. */
export { assertStreamInvariants, findStreamViolations, StreamInvariantError } from './invariants.ts';
export {
  allCapabilities,
  createScriptedAdapter,
  type ScriptedAdapter,
  type ScriptedResponse,
} from './scripted-adapter.ts';
