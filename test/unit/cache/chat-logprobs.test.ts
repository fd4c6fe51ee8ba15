import { describe, expect, it } from 'vitest';
import { capturingChatPlan } from '../../../src/cache/chat-capture.js';
import { completionChunks } from '../../../src/cache/chat-replay.js';
import type { ChunkSink, EventSink, TranslatedPlan } from '../../../src/chat/index.js';

const token = (text: string) => ({ token: text, logprob: -0.25, bytes: [...Buffer.from(text)], top_logprobs: [] });

/** A Chat Completions plan whose sink only collects what it is sent. */
function collectingPlan(sent: unknown[]): TranslatedPlan {
  const sink: ChunkSink = { closed: false, open: () => undefined, send: async (chunk) => void sent.push(chunk), finish: async () => undefined };
  return { kind: 'chat', answer: (completion) => completion, sink: () => sink };
}

/** What capture kept of a stream of `chunks` (undefined: nothing). */
async function captured(chunks: readonly unknown[]): Promise<Record<string, unknown> | undefined> {
  let kept: Record<string, unknown> | undefined;
  const sink = capturingChatPlan(collectingPlan([]), (completion) => (kept = completion)).sink({} as EventSink);
  sink.open();
  for (const chunk of chunks) await sink.send(chunk);
  await sink.finish();
  return kept;
}

const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'test/gpt' };
const usage = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, cost: 0.1, cost_details: [] };

describe('streamed log probabilities', () => {
  it('are put back together per choice and replayed whole in one delta', async () => {
    const chunks = [
      { ...head, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] },
      { ...head, choices: [{ index: 0, delta: { content: 'Hello ' }, logprobs: { content: [token('Hello ')], refusal: null }, finish_reason: null }] },
      { ...head, choices: [{ index: 0, delta: { content: 'there' }, logprobs: { content: [token('there')], refusal: null }, finish_reason: null }] },
      { ...head, choices: [{ index: 0, delta: { content: '.' }, logprobs: { content: [token('.')], refusal: null }, finish_reason: null }] },
      { ...head, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] },
      { ...head, choices: [], usage },
    ];
    const completion = await captured(chunks);
    const logprobs = { content: [token('Hello '), token('there'), token('.')], refusal: null };
    expect(completion?.choices).toEqual([{ index: 0, message: { role: 'assistant', content: 'Hello there.', refusal: null }, logprobs, finish_reason: 'stop' }]);

    const replayed = completionChunks(completion ?? {});
    expect(replayed[0]).toMatchObject({ choices: [{ index: 0, delta: { content: 'Hello there.' }, logprobs, finish_reason: null }] });
    // Replayed and captured again: the same answer.
    expect(await captured(replayed)).toEqual(completion);
  });

  it('keeps refusal log probabilities apart, and answers without any as null', async () => {
    const chunks = [
      { ...head, choices: [{ index: 0, delta: { refusal: 'No.' }, logprobs: { content: null, refusal: [token('No.')] }, finish_reason: null }] },
      { ...head, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      { ...head, choices: [], usage },
    ];
    expect((await captured(chunks))?.choices).toMatchObject([{ logprobs: { content: null, refusal: [token('No.')] } }]);
    const plain = [{ ...head, choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: 'stop' }] }, { ...head, choices: [], usage }];
    expect((await captured(plain))?.choices).toMatchObject([{ logprobs: null }]);
  });

  it('leaves out an answer whose log probabilities cannot be put back exactly', async () => {
    const odd = [
      { ...head, choices: [{ index: 0, delta: { content: 'Hi' }, logprobs: { content: [token('Hi')], refusal: null, future: 1 }, finish_reason: 'stop' }] },
      { ...head, choices: [], usage },
    ];
    expect(await captured(odd)).toBeUndefined();
    const notAList = [{ ...head, choices: [{ index: 0, delta: { content: 'Hi' }, logprobs: { content: 'Hi' }, finish_reason: 'stop' }] }, { ...head, choices: [], usage }];
    expect(await captured(notAList)).toBeUndefined();
  });
});
