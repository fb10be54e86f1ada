/** What each Bedrock model supports through Converse: a baseline and glob rows (one matcher), with the catalog's limits. */
import { applyModelRows, type Capabilities, type ModelCapabilities } from '../../core/capabilities.ts';
import { withCatalog } from '../../core/catalog.ts';
import { catalog } from '../catalog/bedrock.generated.ts';
import { anthropicCapabilities } from '../anthropic/capabilities.ts';

/** Converse `image.format` by media type (API reference: ImageBlock). */
export const imageFormats: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/** Converse `document.format` by media type (API reference: DocumentBlock). */
export const documentFormats: Readonly<Record<string, string>> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
};

/**
 * Shared by every Converse model: text, tools (tool input streamed in fragments), streaming, system
 * blocks. Images, documents, reasoning and cache points only where a row says so. Limits unknown
 * (0) until a row or the catalog says.
 */
const base: Capabilities = {
  images: false,
  audio: false,
  video: false,
  pdf: false,
  reasoning: false,
  tools: true,
  parallelToolCalls: true,
  structuredOutput: false,
  streaming: true,
  streamingToolCalls: true,
  promptCaching: false,
  systemPrompt: true,
  contextWindow: 0,
  maxOutputTokens: 0,
  imageMediaTypes: Object.keys(imageFormats),
  audioMediaTypes: [],
  documentMediaTypes: Object.keys(documentFormats),
};

const vision = { images: true, pdf: true };

/**
 * Rows keyed by glob over the model id without its region prefix (`us.`, `eu.`, `apac.`, `global.`),
 * following the Bedrock model cards ("Supported models and model features" of Converse).
 */
export const bedrockModelCapabilities: ModelCapabilities = {
  'anthropic.claude-*': { ...vision, promptCaching: true },
  // Prompt caching per AWS's supported-models table ("Prompt caching for faster model inference"):
  // not Claude 3 nor 3.5 Sonnet (v2's preview is closed to new accounts; such an account can turn it
  // on with a capability override). A cache point sent to them is a ValidationException.
  'anthropic.claude-3-haiku*': { promptCaching: false },
  'anthropic.claude-3-sonnet*': { promptCaching: false },
  'anthropic.claude-3-opus*': { promptCaching: false },
  'anthropic.claude-3-5-sonnet*': { promptCaching: false },
  'anthropic.claude-3-7-*': { reasoning: true },
  'anthropic.claude-*-4*': { reasoning: true },
  'amazon.nova-*': { ...vision, promptCaching: true },
  'amazon.nova-micro*': { images: false, pdf: false },
  'amazon.nova-2*': { reasoning: true },
  'meta.llama3-2-11b*': { images: true },
  'meta.llama3-2-90b*': { images: true },
  'meta.llama4-*': { images: true },
  'mistral.pixtral*': { images: true },
  'deepseek.r1*': { reasoning: true, tools: false, parallelToolCalls: false },
  'openai.gpt-oss*': { reasoning: true },
  'cohere.command-text*': { tools: false, parallelToolCalls: false, systemPrompt: false },
  'cohere.command-light*': { tools: false, parallelToolCalls: false, systemPrompt: false },
};

/**
 * Whether a model takes a one-hour cache point (`cachePoint.ttl: '1h'`): AWS lists Claude Sonnet
 * 4.5, Haiku 4.5 and Opus 4.5 (and the Claude models after them); not Claude 4.1 and earlier, not
 * Amazon Nova, nor an id that names no model (an application inference profile).
 */
export function takesHourCache(model: string): boolean {
  const match = /^anthropic\.claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?=[-:]|$)/.exec(
    baseModelId(model),
  );
  if (match === null) return false;
  const major = Number(match[1]);
  return major > 4 || (major === 4 && Number(match[2] ?? 0) >= 5);
}

/** `us.anthropic.claude-…` → `anthropic.claude-…`; an ARN → its last path segment. */
export function baseModelId(model: string): string {
  const last = model.startsWith('arn:') ? (model.split('/').at(-1) ?? model) : model;
  return last.replace(/^(us|eu|apac|us-gov|ca|jp|au|global)\./, '');
}

/**
 * The model family of an id: its vendor (`anthropic`, `amazon`, `meta`, `deepseek`, `openai`, …),
 * after the region prefix; an id without one (an application inference profile's `a1b2c3d4`) is its
 * own family, so what it signed goes back to that profile alone. Each family verifies only its own
 * reasoning signatures (Claude's), so projection keeps them apart (`ProviderDefinition.families`).
 */
export function familyOf(model: string): string {
  const id = baseModelId(model);
  const dot = id.indexOf('.');
  return dot > 0 ? id.slice(0, dot) : id;
}

/** A model's capabilities from the rows alone (no catalog): what the model-facts test compares. */
export function tableCapabilities(model: string): Capabilities {
  const resolved = { ...base };
  applyModelRows(resolved, bedrockModelCapabilities, model);
  return resolved;
}

const withCatalogRows = withCatalog(tableCapabilities, catalog);

/** Capabilities of a Converse model id (region prefixes and ARNs accepted). */
export function capabilitiesFor(model: string): Capabilities {
  return withCatalogRows(baseModelId(model));
}

/**
 * Capabilities of a Claude model through InvokeModel: the Anthropic rows for the model's name
 * (`anthropic.claude-sonnet-4-5-20250929-v1:0` → `claude-sonnet-4-5-20250929`).
 */
export function invokeCapabilities(model: string): Capabilities {
  const name = baseModelId(model)
    .replace(/^anthropic\./, '')
    .replace(/-v\d+(:\d+)?$/, '');
  return anthropicCapabilities(name);
}
