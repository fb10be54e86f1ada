/**
 * Every adapter's catalog rows, by adapter name — for consumers that serve many adapters (the
 * registry). A provider entry imports only its own `<name>.generated.ts`.
 */
import type { ModelCatalog } from '../../core/catalog.ts';
import { catalog as alibaba } from './alibaba.generated.ts';
import { catalog as anthropic } from './anthropic.generated.ts';
import { catalog as cerebras } from './cerebras.generated.ts';
import { catalog as deepseek } from './deepseek.generated.ts';
import { catalog as fireworks } from './fireworks.generated.ts';
import { catalog as gemini } from './gemini.generated.ts';
import { catalog as groq } from './groq.generated.ts';
import { catalog as mistral } from './mistral.generated.ts';
import { catalog as moonshot } from './moonshot.generated.ts';
import { catalog as openai } from './openai.generated.ts';
import { catalog as openrouter } from './openrouter.generated.ts';
import { catalog as perplexity } from './perplexity.generated.ts';
import { catalog as together } from './together.generated.ts';
import { catalog as xai } from './xai.generated.ts';
import { catalog as bedrock } from './bedrock.generated.ts';
import { catalog as vertex } from './vertex.generated.ts';

/** The models.dev snapshot, per adapter name. */
export const bundledCatalog: Readonly<Record<string, ModelCatalog>> = {
  anthropic,
  openai,
  gemini,
  groq,
  deepseek,
  xai,
  mistral,
  together,
  fireworks,
  perplexity,
  moonshot,
  alibaba,
  cerebras,
  openrouter,
  bedrock,
  vertex,
};
