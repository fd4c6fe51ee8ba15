import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError, isGatewayError } from '../../platform/errors/index.js';
import { countMessageTokensAsync, countTokens, truncateToTokens } from '../../billing/index.js';
import type { ChatCall, ChatCapability, ChatChoice, ChatDelta, ChatResult, ChatStreamEvent, TokenUsage } from '../chat/chat-types.js';
import { readReasoning } from '../chat/reasoning-options.js';
import { planLocalReply, type LocalReply } from './local-chat-reply.js';
import { replyDeltas } from './local-chat-stream.js';

/** Most choices the echo model produces for `n`. */
const MAX_CHOICES = 8;
/**
 * Most tokens one choice produces (reasoning, tool arguments and content together) when the
 * request sets no smaller `max_tokens`; below the catalog's context length for local models,
 * so the admission hold always covers the output.
 */
export const LOCAL_OUTPUT_LIMIT = 4_096;

function abortError(signal: AbortSignal): GatewayError {
  return isGatewayError(signal.reason) ? signal.reason : new GatewayError('upstream_error', 'The request was aborted');
}

async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw abortError(signal);
  if (ms <= 0) return;
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    throw abortError(signal);
  }
}

/** The completion budget of one choice: the request's limit within the model's own. */
function tokenBudget(call: ChatCall): number {
  const requested = call.body.max_completion_tokens ?? call.body.max_tokens ?? LOCAL_OUTPUT_LIMIT;
  return Math.max(0, Math.min(requested, LOCAL_OUTPUT_LIMIT));
}

/**
 * Applies the completion budget to every output as an upstream does: reasoning first, then
 * tool arguments, then content share it; whatever does not fit is cut (tool arguments may
 * then be incomplete JSON) and the finish reason becomes `length`.
 */
function limitTokens(reply: LocalReply, call: ChatCall): { reply: LocalReply; finish: string } {
  let left = tokenBudget(call);
  let cut = false;
  const spend = (text: string): string => {
    const out = truncateToTokens(text, left);
    left -= countTokens(out.text);
    cut ||= out.truncated;
    return out.text;
  };
  const reasoning = reply.reasoning === undefined ? undefined : spend(reply.reasoning);
  // A tool call's name counts as completion tokens too, so it spends from the same budget.
  const toolCalls = reply.toolCalls?.map((t) => ({ ...t, function: { name: spend(t.function.name), arguments: spend(t.function.arguments) } }));
  const content = reply.content === null ? null : spend(reply.content);
  return { reply: { ...reply, reasoning, toolCalls, content }, finish: cut ? 'length' : reply.finishReason };
}

async function usageOf(reply: LocalReply, call: ChatCall, choices: number): Promise<TokenUsage> {
  const tools = (reply.toolCalls ?? []).reduce((sum, t) => sum + countTokens(t.function.name) + countTokens(t.function.arguments), 0);
  const reasoningTokens = countTokens(reply.reasoning ?? '');
  const completion = countTokens(reply.content ?? '') + reasoningTokens + tools;
  return { promptTokens: await countMessageTokensAsync(call.body.messages), completionTokens: completion * choices, reasoningTokens: reasoningTokens * choices };
}

function prepare(call: ChatCall): { reply: LocalReply; finish: string; choices: number; showReasoning: boolean } {
  const { reply, finish } = limitTokens(planLocalReply(call.body), call);
  const choices = Math.max(1, Math.min(MAX_CHOICES, call.body.n ?? 1));
  return { reply, finish, choices, showReasoning: !readReasoning(call.body).exclude };
}

function forEachChoice(count: number, delta: ChatDelta['delta'], finish: string | null = null): ChatStreamEvent {
  return { kind: 'delta', choices: Array.from({ length: count }, (_, index) => ({ index, delta, finish_reason: finish })) };
}

async function complete(call: ChatCall): Promise<ChatResult> {
  const { reply, finish, choices, showReasoning } = prepare(call);
  const { slowMs, failAfter } = reply.directives;
  await pause(slowMs * replyDeltas(reply).length, call.signal);
  if (failAfter !== undefined) throw new GatewayError('upstream_error', 'The local model failed on request ([[local:fail-after]])');
  const message: ChatChoice['message'] = { role: 'assistant', content: reply.content };
  if (showReasoning && reply.reasoning !== undefined) message.reasoning = reply.reasoning;
  if (reply.toolCalls !== undefined) message.tool_calls = reply.toolCalls;
  return {
    choices: Array.from({ length: choices }, (_, index) => ({ index, message: { ...message }, finish_reason: finish })),
    usage: await usageOf(reply, call, choices),
  };
}

async function* stream(call: ChatCall): AsyncGenerator<ChatStreamEvent> {
  const { reply, finish, choices, showReasoning } = prepare(call);
  const { slowMs, failAfter } = reply.directives;
  await pause(0, call.signal);
  yield forEachChoice(choices, { role: 'assistant', content: '' });
  let sent = 0;
  for (const delta of replyDeltas(reply)) {
    if (failAfter !== undefined && sent >= failAfter) {
      throw new GatewayError('upstream_error', `The local model failed after ${sent} deltas ([[local:fail-after]])`);
    }
    await pause(slowMs, call.signal);
    sent += 1;
    if (!showReasoning && delta.reasoning !== undefined) continue;
    yield forEachChoice(choices, delta);
  }
  await pause(0, call.signal);
  yield forEachChoice(choices, {}, finish);
  yield { kind: 'usage', usage: await usageOf(reply, call, choices) };
}

/**
 * Chat of the `local` provider (upstream model `echo`): no network, deterministic answers
 * (see `planLocalReply`), streamed in several deltas, usage counted with the o200k tokenizer.
 * Test directives in the prompt slow it down or make it fail (see `local-chat-directives.ts`).
 * The AbortSignal is checked before every delta and interrupts waits.
 */
export function createLocalChat(): ChatCapability {
  return { complete, stream, countInput: (body) => countMessageTokensAsync(body.messages) };
}
