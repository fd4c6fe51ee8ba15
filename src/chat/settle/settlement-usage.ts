import { readReasoning, type TokenUsage } from '../../providers/index.js';
import type { AdmittedChat } from '../admit/chat-admit.js';
import type { ProducedText } from '../wire/produced-text.js';
import { cutLegPromptTokens } from './vendor-prompt.js';

/** How a request's usage arrived: what the upstream reported, and whether that report is complete. */
export interface ReportedUsage {
  readonly usage: TokenUsage | undefined;
  /** False when the answer ended before the upstream's final counts (only partial ones, or none). */
  readonly complete: boolean;
  readonly produced: ProducedText;
  /** The upstream broke off mid-answer (cut, stalled, errored): input it did not report is counted as its vendor counts it. */
  readonly cut?: boolean;
}

/** More tokens than any one request can report; a larger count is clamped to it (never wraps). */
export const MAX_PLAUSIBLE_TOKENS = 1_000_000_000;

/** A count as reported: a non-negative whole number, clamped; anything else is no count at all. */
function sane(count: number | undefined): number | undefined {
  if (count === undefined || !Number.isFinite(count) || count < 0) return undefined;
  return Math.min(Math.ceil(count), MAX_PLAUSIBLE_TOKENS);
}

/** Whether the request asked a reasoning model to reason, so unseen output may be hidden reasoning. */
function reasonsUnseen(admitted: AdmittedChat): boolean {
  return admitted.model.doc.capabilities.includes('REASONING') && readReasoning(admitted.body).enabled;
}

/**
 * The usage a request is billed for — the settlement policy in one place (docs/money-and-holds.md, "Settlement policy"):
 * the upstream's own counts when it reported them in full; otherwise, for every count it did
 * not report (or reported as nonsense: negative, not finite), a count made here of everything
 * the hold included: the whole input as bounded at admission (exactly counted), the produced
 * text, and for a reasoning model whose reasoning was never seen, the hold's reasoning share.
 * A leg its upstream cut off mid-answer has its unreported input counted as its vendor counts
 * it instead (see cutLegPromptTokens): the vendor bills that leg's input by its own count.
 * Absurdly large counts are clamped; the charge is then capped at the hold by admission.
 */
export async function settlementUsage(admitted: AdmittedChat, leg: ReportedUsage): Promise<TokenUsage> {
  const { usage: reported, complete, produced } = leg;
  const prompt = sane(reported?.promptTokens);
  const completion = sane(reported?.completionTokens);
  const details = {
    ...(sane(reported?.cachedTokens) ? { cachedTokens: sane(reported?.cachedTokens) } : {}),
    ...(sane(reported?.cacheWriteTokens) ? { cacheWriteTokens: sane(reported?.cacheWriteTokens) } : {}),
    ...(sane(reported?.cacheWrite1hTokens) ? { cacheWrite1hTokens: sane(reported?.cacheWrite1hTokens) } : {}),
    ...(sane(reported?.webSearches) ? { webSearches: sane(reported?.webSearches) } : {}),
  };
  if (complete && prompt !== undefined && completion !== undefined) {
    return { promptTokens: prompt, completionTokens: completion, reasoningTokens: Math.min(sane(reported?.reasoningTokens) ?? 0, completion), ...details };
  }
  const made = await produced.tokens();
  const hidden = made.reasoning === 0 && reasonsUnseen(admitted) ? Math.max(0, admitted.hold.completionTokens - made.visible) : 0;
  const reasoning = Math.max(sane(reported?.reasoningTokens) ?? 0, made.reasoning + hidden);
  return {
    promptTokens: prompt ?? (await (leg.cut === true ? cutLegPromptTokens(admitted) : admitted.promptTokens())),
    completionTokens: Math.max(completion ?? 0, made.visible + reasoning),
    reasoningTokens: reasoning,
    ...details,
  };
}
