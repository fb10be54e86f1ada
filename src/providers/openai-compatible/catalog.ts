/** The models.dev catalog rows of the compatible hosts that have them, by preset name. */
import type { ModelCatalog } from '../../core/catalog.ts';
import { catalog as alibaba } from '../catalog/alibaba.generated.ts';
import { catalog as cerebras } from '../catalog/cerebras.generated.ts';
import { catalog as deepseek } from '../catalog/deepseek.generated.ts';
import { catalog as fireworks } from '../catalog/fireworks.generated.ts';
import { catalog as groq } from '../catalog/groq.generated.ts';
import { catalog as mistral } from '../catalog/mistral.generated.ts';
import { catalog as moonshot } from '../catalog/moonshot.generated.ts';
import { catalog as openrouter } from '../catalog/openrouter.generated.ts';
import { catalog as perplexity } from '../catalog/perplexity.generated.ts';
import { catalog as together } from '../catalog/together.generated.ts';
import { catalog as xai } from '../catalog/xai.generated.ts';
import type { PresetName } from './presets.ts';

/** Catalog rows per preset (local servers — ollama, lmstudio, vllm — serve whatever is loaded: none). */
export const presetCatalogs: Partial<Record<PresetName, ModelCatalog>> = {
  openrouter,
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
};
