/**
 * The entries split by audience: `switchyard-ai` for people building apps, `switchyard-ai/adapter-kit`
 * for adapter authors, `switchyard-ai/routing` for the gateway and operators. Each list is pinned
 * here, grouped by what it is for; a name has one home, and adding one to an entry means adding it
 * to its group below (and asking whether its audience needs it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/fixtures.ts';

/** The root entry, by what an app does with each name. */
const root = {
  client: [
    'createSwitchyard',
    'Switchyard',
    'SwitchyardOptions',
    'SwitchyardRequest',
    'ModelDescription',
    'TokenCount',
    'TokenCountOptions',
  ],
  conversation: ['Conversation', 'ConversationSettings', 'ConversationSnapshot', 'Turn'],
  tools: ['tool', 'Tool', 'ToolSchema', 'InferSchema', 'SchemaLike', 'StructuredOutputError'],
  transcript: [
    ...['Transcript', 'Item', 'ItemKind', 'Part', 'TextPart', 'ReasoningPart', 'ToolCallPart'],
    ...['ToolResultPart', 'ToolOutput', 'MediaPart', 'FilePart', 'DataRef', 'StructuredPart', 'CustomPart'],
    ...['MetadataMap', 'userText', 'systemText', 'assistantItem', 'toolResultItem', 'toolResultPart'],
    ...['ToolResultValue', 'parseTranscript', 'stringifyTranscript', 'ParseResult', 'ValidationIssue'],
    ...['JsonValue', 'JsonObject'],
  ],
  requests: [
    ...['CanonicalRequest', 'CanonicalResponse', 'OutputSchema', 'PromptCacheRequest', 'ReasoningRequest'],
    ...['ToolSpec', 'ToolChoice', 'Reply', 'textOf', 'toolCallsOf', 'Usage', 'Cost', 'addUsage'],
    ...['FreeformFormat', 'freeformTool', 'freeformText'],
    ...['MessageId', 'ModelId', 'RequestId', 'SessionId', 'ToolCallId'],
  ],
  events: ['* ./core/events.ts', 'EventStream', 'FinishReason', 'finishReasons'],
  adapters: [
    ...['Adapter', 'CallOptions', 'ModelInfo', 'ProtocolId', 'RetryInfo'],
    ...['Capabilities', 'CapabilityName', 'CapabilityOverrides', 'ModelCapabilities'],
  ],
  errors: [
    ...['AdapterError', 'AuthError', 'CancelledError', 'ContextOverflowError', 'InvalidRequestError'],
    ...['NetworkError', 'RateLimitError', 'ServerError', 'ErrorClass', 'errorClasses', 'isAdapterError'],
    ...['isAuthError', 'isCancelledError', 'isContextOverflowError', 'isInvalidRequestError'],
    ...['isNetworkError', 'isRateLimitError', 'isServerError'],
  ],
  observers: [
    ...['Observer', 'CallEvent', 'CallStartedEvent', 'CallFirstChunkEvent', 'CallRetriedEvent'],
    ...['CallCompletedEvent', 'CallFailedEvent', 'createJsonLinesReporter', 'JsonLinesReporterOptions'],
    'summarizeEvent',
  ],
  logging: [
    'Logger',
    'LogLevel',
    'LogFields',
    'consoleLogger',
    'createConsoleLogger',
    'silentLogger',
    'createMemoryLogger',
  ],
  config: [
    ...['parseConfig', 'parseConfigYaml', 'SwitchyardConfig', 'ConfigError', 'ConfigIssue', 'ModelFacts'],
    ...['ModelListing', 'ResolvedModel', 'MatchKind'],
  ],
  prices: [
    'createPriceTable',
    'PriceTable',
    'PriceTableOptions',
    'ModelPrices',
    'TieredPrice',
    'computeCost',
    'reprice',
  ],
};

/** `switchyard-ai/adapter-kit`, by what an adapter author does with each name. */
const adapterKit = {
  stream: ['StreamBuilder', 'StreamBuilderContext', 'BlockKey', 'accumulateResponse', 'ResponseAccumulator'],
  toolIds: ['ToolIdMap', 'ToolIdRule', 'anyToolId', 'hashId', 'AdapterSession', 'createSession'],
  json: ['JsonFragments', 'repairJsonObject', 'isJsonObject', 'toJsonSchema', 'validateValue', 'SchemaIssue'],
  errors: [
    ...['classifyError', 'createAdapterError', 'AdapterErrorOptions', 'ErrorBody', 'ErrorRule'],
    ...['isRetryableClass', 'mapStatusToErrorClass'],
  ],
  checks: [
    ...['requestSchema', 'validateRequest', 'validateCallOptions', 'checkTranscript', 'TranscriptViolation'],
    ...[
      'transcriptSchema',
      'formatPath',
      'requiredCapabilities',
      'assertCapabilities',
      'assertContextWindow',
    ],
    ...['contextOverflowFactor', 'TokenEstimateInput'],
  ],
  runtime: [
    ...['createRequestId', 'createSessionId', 'createToolCallId', 'toolCallId', 'splitModelId'],
    ...['isMetadataKey', 'sortMetadata', 'emptyUsage', 'totalInputTokens', 'usageFromInclusive'],
    ...['addCosts', 'defaultPriceTable', 'PriceSnapshot'],
  ],
  providerTypes: [
    ...['registerProviderType', 'createProviderTypeTable', 'loadProviderTypeTable', 'ProviderTypeTable'],
    ...['ProviderTypeDefinition', 'ProviderTypeCreateOptions'],
  ],
};

/** `switchyard-ai/routing`: availability and routing decisions. */
const routing = {
  availability: [
    ...[
      'Availability',
      'AvailabilityPolicy',
      'AvailabilityOperation',
      'AvailabilityRecord',
      'AvailabilityStore',
    ],
    ...['Admission', 'applyTransition', 'CircuitState', 'createMemoryAvailabilityStore'],
    ...['defaultAvailabilityPolicy', 'TransitionOutcome'],
  ],
  decisions: [
    'RoutingAttempt',
    'RoutingDecision',
    'routingDecision',
    'routingDecisionOfError',
    'RouteRequest',
  ],
  names: ['matchesGlob'],
};

/** Every name an entry file exports (types included); `export type *` counts as `* <module>`. */
function exportedNames(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(join(repoRoot, file), 'utf8'),
    ts.ScriptTarget.Latest,
  );
  return source.statements.flatMap((statement) => {
    if (!ts.isExportDeclaration(statement)) return [];
    const clause = statement.exportClause;
    if (clause !== undefined && ts.isNamedExports(clause))
      return clause.elements.map((element) => element.name.text);
    return [`* ${(statement.moduleSpecifier as ts.StringLiteral).text}`];
  });
}

const sorted = (names: readonly string[]) => [...names].sort();
const all = (groups: Record<string, string[]>) => Object.values(groups).flat();

describe('entries split by audience', () => {
  it.each([
    ['switchyard-ai', 'src/index.ts', root],
    ['switchyard-ai/adapter-kit', 'src/adapter-kit.ts', adapterKit],
    ['switchyard-ai/routing', 'src/routing/index.ts', routing],
  ] as const)('%s exports exactly its audience list', (_entry, file, groups) => {
    expect(sorted(exportedNames(file))).toEqual(sorted(all(groups)));
  });

  it('the root stays small: 130 names at most (it was 207 for three audiences)', () => {
    expect(all(root).length).toBe(exportedNames('src/index.ts').length);
    expect(all(root).length).toBeLessThanOrEqual(130);
  });

  it('every name has one home: no name is exported by two of the three entries', () => {
    const names = [...all(root), ...all(adapterKit), ...all(routing)];
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
  });

  it('each entry is in package.json exports and tsconfig paths', () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      exports: Record<string, { default: string }>;
    };
    expect(manifest.exports['./adapter-kit']?.default).toBe('./dist/adapter-kit.js');
    expect(manifest.exports['./routing']?.default).toBe('./dist/routing/index.js');
    const tsconfig = readFileSync(join(repoRoot, 'tsconfig.json'), 'utf8');
    expect(tsconfig).toContain('"switchyard-ai/adapter-kit": ["./src/adapter-kit.ts"]');
    expect(tsconfig).toContain('"switchyard-ai/routing": ["./src/routing/index.ts"]');
  });

  it('one tool type and one helper: the agent entry adds only what running a tool needs', async () => {
    const toolNames = exportedNames('src/agent/index.ts').filter((name) => /^tool/i.test(name));
    expect(sorted(toolNames)).toEqual(
      sorted(['tool', 'Tool', 'ToolSchema', 'ToolContext', 'ToolReturn', 'toolOutput']),
    );
    const [app, agent] = await Promise.all([import('switchyard-ai'), import('switchyard-ai/agent')]);
    expect(agent.tool).toBe(app.tool);
    expect('defineTool' in agent).toBe(false);
  });

  it('an adapter author builds a stream from the kit alone, imported by package name', async () => {
    const kit = await import('switchyard-ai/adapter-kit');
    const ids = new kit.ToolIdMap();
    expect(typeof kit.StreamBuilder).toBe('function');
    expect(new kit.JsonFragments()).toBeDefined();
    expect(ids).toBeInstanceOf(kit.ToolIdMap);
    const table = kit.createProviderTypeTable();
    kit.registerProviderType({ ...table.get('anthropic')!, type: 'my-host' }, table);
    expect(table.has('my-host')).toBe(true);
  });
});
