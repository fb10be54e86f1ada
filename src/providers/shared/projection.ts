/**
 * Cross-provider replay in ONE place: which canonical parts a target provider can take, the WARN
 * for each part dropped (docs/contract.md §4.4: drop cleanly, never half-serialize), and tool-id mapping.
 */
import type { ToolCallId } from '../../core/ids.ts';
import { anyToolId, type ToolIdRule } from '../../core/tool-id-map.ts';
import type { Item, Part } from '../../core/transcript.ts';
import type { ProviderContext } from './definition.ts';

/** What a target provider accepts back from a transcript. */
export interface ProjectionRules {
  /** True when the part may be sent (e.g. reasoning signed by this provider). */
  accepts(part: Part, item: Item): boolean;
  /** Why a refused part is dropped, for the WARN entry. */
  reason(part: Part): string;
}

/** Default rules: reasoning and custom parts only go back to the provider that produced them. */
export function sameProviderRules(
  provider: string,
  options: { reasoningNeedsSignature?: boolean } = {},
): ProjectionRules {
  return {
    accepts(part) {
      if (part.type === 'reasoning') {
        if (part.provider !== provider) return false;
        if (options.reasoningNeedsSignature === true)
          return part.signature !== undefined || part.data !== undefined;
        return true;
      }
      if (part.type === 'custom') return part.provider === provider;
      return true;
    },
    reason(part) {
      if (part.type === 'reasoning') {
        return part.provider === provider
          ? 'reasoning without the signature the provider requires'
          : `reasoning produced by ${part.provider ?? 'an unknown provider'} cannot be verified by ${provider}`;
      }
      if (part.type === 'custom')
        return `${part.provider} ${part.kind} content has no ${provider} equivalent`;
      return `${part.type} part is not supported by ${provider}`;
    },
  };
}

/**
 * Returns the transcript with every part the target refuses removed, logging one structured WARN
 * per dropped part (adapter, request, session, item index, part type, reason). Items left empty
 * are removed too. Never mutates the input.
 */
export function projectTranscript(
  items: readonly Item[],
  rules: ProjectionRules,
  context: ProviderContext,
): Item[] {
  const projected: Item[] = [];
  items.forEach((item, itemIndex) => {
    let parts: Part[] | undefined;
    item.parts.forEach((part, partIndex) => {
      if (rules.accepts(part, item)) {
        parts?.push(part);
        return;
      }
      parts ??= item.parts.slice(0, partIndex);
      context.warn('dropped a part the provider cannot take', {
        messageId: item.id,
        itemIndex,
        partIndex,
        blockType: part.type,
        reason: rules.reason(part),
      });
    });
    if (parts === undefined) projected.push(item);
    else if (parts.length > 0) projected.push({ ...item, parts });
  });
  return projected;
}

/** The provider-side id for a canonical tool-call id (stable for the session). */
export function providerToolId(
  context: ProviderContext,
  canonicalId: string,
  rule: ToolIdRule = anyToolId,
): string {
  return context.session.toolIds.toProvider(context.provider, canonicalId, rule);
}

/** The canonical id for a provider-issued tool-call id (minted on first sight). */
export function canonicalToolId(context: ProviderContext, providerId: string): ToolCallId {
  return context.session.toolIds.toCanonical(context.provider, providerId);
}

/** Joins the text of system, developer and context items with blank lines (docs/contract.md §4.1.2). */
export function joinInstructions(items: readonly Item[]): string {
  const texts: string[] = [];
  for (const item of items) {
    if (item.kind !== 'system' && item.kind !== 'developer' && item.kind !== 'context') continue;
    for (const part of item.parts) if (part.type === 'text' && part.text !== '') texts.push(part.text);
  }
  return texts.join('\n\n');
}

/** True for system, developer and context items. */
export function isInstructionItem(item: Item): boolean {
  return item.kind === 'system' || item.kind === 'developer' || item.kind === 'context';
}
