/** The public conformance kit: `runAdapterSuite` and its types (see docs/testing.md, "The conformance suite"). */
export { registeredCases, runAdapterSuite, suiteCases } from './run-adapter-suite.ts';
export {
  type AdapterSuiteOptions,
  type AdapterSuiteSettings,
  type MemoryLogger,
  type SuiteCase,
  type SuiteCaseName,
  type SuiteContext,
  suiteCaseNames,
  type TestHarness,
} from './types.ts';
