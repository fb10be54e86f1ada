/** Public surface of the provider emulator: a loopback server speaking the real provider wire protocols. */
export { anthropicError, googleError, type OpenaiErrorOptions, openaiError } from './errors.ts';
export {
  protocolError,
  protocolErrors,
  type ResponseErrorClass,
  responseErrorClasses,
} from './protocol-errors.ts';
export { emulatorProtocolIds, isEmulatorProtocolId } from './routing.ts';
export { startEmulator } from './server.ts';
export type {
  ChatReasoningField,
  Emulator,
  EmulatorProtocolId,
  EmulatorBodyFault,
  EmulatorFault,
  EmulatorOptions,
  EmulatorScript,
  EmulatorScriptOptions,
  JsonScript,
  RecordedRequest,
  ReplayScript,
  ScriptedContent,
  ScriptedReasoning,
  ScriptedScript,
  ScriptedText,
  ScriptedToolCall,
  ScriptedUsage,
  SseEvent,
  ServedRequest,
  SseScript,
} from './types.ts';
