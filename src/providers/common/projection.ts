/**
 * Cross-provider replay in ONE place: which canonical parts a target provider can take, the WARN
 * for each part dropped (docs/contract.md §4.4: drop cleanly, never half-serialize), and tool-id mapping.
 */
import type { ToolCallId } from '../../core/ids.ts';
import { participantNameKey } from '../../core/metadata.ts';
import { anyToolId, type ToolIdRule } from '../../core/tool-id-map.ts';
import type { Item, Part } from '../../core/transcript.ts';
import type { ProviderContext, ProviderDefinition } from './definition.ts';

/** What a target provider accepts back from a transcript. */
export interface ProjectionRules {
  /** True when the part may be sent (e.g. reasoning signed by this provider). */
  accepts(part: Part, item: Item): boolean;
  /** Why a refused part is dropped, for the WARN entry. */
  reason(part: Part): string;
  /**
   * The target sends a user turn's participant name itself (OpenAI Chat's `name`); otherwise, when
   * the user turns carry two or more names, each is written before its turn's text ({@link namedUserItem}).
   */
  keepsNames?: boolean;
}

/** What the projection rules read of a call: its adapter name and the tag of its own parts. */
export type ProvenanceSite = Pick<ProviderContext, 'provider' | 'provenance' | 'ownsBareTag'>;

/** The tag of a call's own parts: `provenance`, else the adapter name. */
export function provenanceOf(context: ProvenanceSite): string {
  return context.provenance ?? context.provider;
}

/**
 * Whether a part tagged `tag` (its `provider`) was produced where this call goes: the same
 * provenance, or the bare adapter name when the call owns it (`ownsBareTag`).
 */
export function isOwnTag(tag: string | undefined, context: ProvenanceSite): boolean {
  if (tag === undefined) return false;
  return tag === provenanceOf(context) || (context.ownsBareTag === true && tag === context.provider);
}

/**
 * The provenance fields of a call to wire model `model` (for its `ProviderContext`): the adapter
 * name, or `name/family` on a host with `families` (see `ProviderDefinition.families`).
 */
export function provenanceFields(
  definition: Pick<ProviderDefinition, 'name' | 'families'>,
  model: string,
): Pick<ProviderContext, 'provenance' | 'ownsBareTag'> {
  const families = definition.families;
  if (families === undefined) return { provenance: definition.name };
  const family = families.of(model);
  const provenance = `${definition.name}/${family}`;
  return family === families.bare ? { provenance, ownsBareTag: true } : { provenance };
}

/** Why a part of `tag` is foreign to this call, for the WARN. */
function foreignReason(what: string, tag: string | undefined, context: ProvenanceSite): string {
  const own = provenanceOf(context);
  if (tag !== undefined && tag === context.provider && own !== tag)
    return `${what} tagged ${tag} was stored before Switchyard recorded which model family on ${tag} produced it; ${own} cannot verify it`;
  return `${what} produced by ${tag ?? 'an unknown provider'} cannot be verified by ${own}`;
}

/**
 * Default rules: reasoning and custom parts only go back to the provider that produced them — on a
 * host serving several model families, to the same family (`isOwnTag`).
 */
export function sameProviderRules(
  context: ProvenanceSite,
  options: { reasoningNeedsSignature?: boolean } = {},
): ProjectionRules {
  return {
    accepts(part) {
      if (part.type === 'reasoning') {
        if (!isOwnTag(part.provider, context)) return false;
        if (options.reasoningNeedsSignature === true)
          return part.signature !== undefined || part.data !== undefined;
        return true;
      }
      if (part.type === 'custom') return isOwnTag(part.provider, context);
      return true;
    },
    reason(part) {
      if (part.type === 'reasoning') {
        return isOwnTag(part.provider, context)
          ? 'reasoning without the signature the provider requires'
          : foreignReason('reasoning', part.provider, context);
      }
      if (part.type === 'custom')
        return part.provider === context.provider && provenanceOf(context) !== context.provider
          ? foreignReason(`${part.kind} content`, part.provider, context)
          : `${part.provider} ${part.kind} content has no ${provenanceOf(context)} equivalent`;
      return `${part.type} part is not supported by ${context.provider}`;
    },
  };
}

/** Where a part sits in the caller's transcript: the fields every lossy-drop WARN carries. */
export interface PartLocation {
  /** The item's id; `null` when the item has none. */
  messageId: string | null;
  /** The item's index in the transcript the caller passed; `null` when the part is not from it. */
  itemIndex: number | null;
  /** The part's index in its item (for a part inside a tool result: the tool result's index). */
  partIndex: number | null;
}

/** The one message of every lossy drop, on every adapter. */
export const droppedPartMessage = 'dropped a part the provider cannot take';

const unknownLocation: PartLocation = { messageId: null, itemIndex: null, partIndex: null };

/**
 * Records the transcript whose parts {@link warnDroppedPart} locates (tool-result parts included),
 * on the call's context (`ProviderContext.partLocations`). Only the transcript is kept: the index of
 * its parts' locations is built on the first drop logged (rare), not on every call, and then serves
 * every later drop of the call (a transcript of many dropped parts stays linear). On the context,
 * not in a WeakMap keyed by it: a WeakMap entry per call cost every call GC time (its table grew
 * between collections, and each call's transcript survived young-generation GCs through it).
 */
export function recordPartLocations(items: readonly Item[], context: ProviderContext): void {
  context.partLocations = { items };
}

/** Every part's first location: items and parts in order, a part inside a tool result at that tool result. */
function indexParts(items: readonly Item[]): Map<Part, PartLocation> {
  const index = new Map<Part, PartLocation>();
  const add = (part: Part, location: PartLocation) => {
    if (!index.has(part)) index.set(part, location);
  };
  items.forEach((item, itemIndex) => {
    item.parts.forEach((part, partIndex) => {
      const location = { messageId: item.id ?? null, itemIndex, partIndex };
      add(part, location);
      if (part.type === 'tool-result' && part.output.type === 'parts')
        for (const inner of part.output.parts) add(inner, location);
    });
  });
  return index;
}

/**
 * Where `part` sits in the transcript of this call: its first occurrence, items and parts in order,
 * a part inside a tool result at that tool result (all fields `null` when it is not there).
 */
export function locatePart(context: ProviderContext, part: Part): PartLocation {
  const call = context.partLocations;
  if (call === undefined) return unknownLocation;
  call.index ??= indexParts(call.items);
  return (call.index.get(part) as PartLocation | undefined) ?? unknownLocation;
}

/**
 * The projection policy, one WARN per lossy drop on every adapter: message
 * {@link droppedPartMessage} with `adapter`, `requestId` and `sessionId` (added by `context.warn`),
 * `messageId`, `itemIndex`, `partIndex`, `blockType` (the canonical part type) and `reason`. Content a
 * provider cannot take — a part type or modality it has no block for, another provider's reasoning
 * or custom part, an artifact handle no adapter can resolve, a URL it will not fetch — is dropped
 * this way, never half-serialized. Content that is malformed whatever the provider (a `data:` URI
 * that is not base64) is an `InvalidRequestError` instead. Returns `undefined` for use in converters.
 */
export function warnDroppedPart(context: ProviderContext, part: Part, reason: string): undefined {
  context.warn(droppedPartMessage, { ...locatePart(context, part), blockType: part.type, reason });
  return undefined;
}

/**
 * Returns the transcript with every part the target refuses removed, logging one
 * {@link warnDroppedPart} WARN per dropped part. Items left empty are removed too. Records the
 * locations of the caller's parts, so drops found later in conversion name them. Never mutates the input.
 */
export function projectTranscript(
  items: readonly Item[],
  rules: ProjectionRules,
  context: ProviderContext,
): Item[] {
  recordPartLocations(items, context);
  const prefixNames = rules.keepsNames !== true && severalUserNames(items);
  const projected: Item[] = [];
  for (const item of items) {
    let parts: Part[] | undefined;
    item.parts.forEach((part, partIndex) => {
      if (rules.accepts(part, item)) {
        parts?.push(part);
        return;
      }
      parts ??= item.parts.slice(0, partIndex);
      warnDroppedPart(context, part, rules.reason(part));
    });
    const kept = parts === undefined ? item : parts.length > 0 ? { ...item, parts } : undefined;
    if (kept === undefined) continue;
    projected.push(prefixNames ? namedUserItem(kept) : kept);
  }
  return projected;
}

/**
 * Whether the transcript's user turns carry two or more participant names: only then does a target
 * without a name field get them written into the text (one name — a client naming every message
 * `user` — tells nothing apart, and would only change the prompt).
 */
function severalUserNames(items: readonly Item[]): boolean {
  let first: unknown;
  for (const item of items) {
    const name = item.kind === 'user' ? item.metadata?.[participantNameKey] : undefined;
    if (typeof name !== 'string' || name === '') continue;
    if (first === undefined) first = name;
    else if (name !== first) return true;
  }
  return false;
}

/**
 * A user item with a participant name ({@link participantNameKey}) for a target with no name field:
 * the name written before its first text (`alice: hi`), or as a text part of its own before its
 * first part, so two named users' turns stay told apart when the target joins adjacent user turns.
 * Any other item as it is.
 */
export function namedUserItem(item: Item): Item {
  const name = item.metadata?.[participantNameKey];
  if (item.kind !== 'user' || typeof name !== 'string' || name === '') return item;
  const first = item.parts[0];
  const parts: Part[] =
    first?.type === 'text'
      ? [{ ...first, text: `${name}: ${first.text}` }, ...item.parts.slice(1)]
      : [{ type: 'text', text: `${name}:` }, ...item.parts];
  return { ...item, parts };
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

/** The one message of every instruction a protocol with one system prompt moves there. */
export const movedInstructionMessage = 'moved a mid-conversation instruction into the system prompt';

/** How many items lead `items` as instructions (system, developer, context): the index of the first other item. */
export function leadingInstructions(items: readonly Item[]): number {
  const first = items.findIndex((item) => !isInstructionItem(item));
  return first === -1 ? items.length : first;
}

/**
 * Toward a protocol with one top-level system prompt (Anthropic, Gemini, Bedrock; a Chat host without
 * `instructionsInPlace`): one WARN {@link movedInstructionMessage} per instruction item with text
 * after the conversation's first other item. It is joined into that prompt, where the model reads it
 * as if it led the conversation (and a prompt cache's prefix changes with it). Names the item as the
 * projection WARNs do: `messageId`, `itemIndex` (in `items`, the transcript the caller passed),
 * `kind`, `reason`.
 */
export function warnMovedInstructions(items: readonly Item[], context: ProviderContext): void {
  for (let index = leadingInstructions(items); index < items.length; index++) {
    const item = items[index]!;
    if (!isInstructionItem(item) || !item.parts.some((part) => part.type === 'text' && part.text !== ''))
      continue;
    context.warn(movedInstructionMessage, {
      messageId: item.id ?? null,
      itemIndex: index,
      kind: item.kind,
      reason: 'the provider takes one system prompt, before the conversation',
    });
  }
}
