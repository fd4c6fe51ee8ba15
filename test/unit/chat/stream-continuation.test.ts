import { describe, expect, it } from 'vitest';
import { AnswerSoFar } from '../../../src/chat/continue/answer-so-far.js';
import { continuationDeltas, prefillBody, prefillOf } from '../../../src/chat/continue/prefill.js';
import type { ChatDelta, ChatRequestBody } from '../../../src/providers/index.js';

const delta = (content: string, extra: Partial<ChatDelta['delta']> = {}, finish: string | null = null): ChatDelta => ({ index: 0, delta: { content, ...extra }, finish_reason: finish });
const texts = (choices: ChatDelta[]) => choices.map((c) => c.delta.content ?? '').join('');

describe('prefill', () => {
  it('trims trailing whitespace off the prefill and remembers it as owed', () => {
    expect(prefillOf('Alpha bravo \n')).toEqual({ text: 'Alpha bravo', owed: ' \n' });
    expect(prefillOf('Alpha')).toEqual({ text: 'Alpha', owed: '' });
  });

  it('sends the conversation with the partial answer as a trailing assistant message and the output limit left', () => {
    const body: ChatRequestBody = { model: 'm', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 100 };
    const next = prefillBody(body, prefillOf('Alpha bravo '), 30);
    expect(next.messages).toEqual([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'Alpha bravo' }]);
    expect(next.max_completion_tokens).toBe(70);
    expect(next.max_tokens).toBeUndefined();
    expect(body.messages).toHaveLength(1);
    expect(prefillBody({ model: 'm', messages: [], max_tokens: 10 }, prefillOf('x'), 50).max_tokens).toBe(1);
  });
});

describe('continuationDeltas', () => {
  it('drops the second role and the empty first chunk', () => {
    const reshape = continuationDeltas(prefillOf('Alpha'));
    expect(reshape([delta('', { role: 'assistant' })])).toEqual([]);
    expect(reshape([delta(' bravo', { role: 'assistant' })])).toEqual([delta(' bravo')]);
  });

  it('does not send again the whitespace the client already has, and only that', () => {
    const reshape = continuationDeltas(prefillOf('Alpha '));
    expect(texts(reshape([delta(' ')]))).toBe('');
    expect(texts(reshape([delta(' bravo')]))).toBe(' bravo');
    const other = continuationDeltas(prefillOf('Alpha '));
    expect(texts(other([delta('  bravo')]))).toBe(' bravo');
    const none = continuationDeltas(prefillOf('Alpha '));
    expect(texts(none([delta('bravo'), delta(' charlie')]))).toBe('bravo charlie');
  });

  it('keeps a finish chunk', () => {
    const reshape = continuationDeltas(prefillOf('Alpha'));
    expect(reshape([{ index: 0, delta: {}, finish_reason: 'stop' }])).toEqual([{ index: 0, delta: {}, finish_reason: 'stop' }]);
  });
});

describe('AnswerSoFar', () => {
  it('collects the text of one plain choice', () => {
    const answer = new AnswerSoFar();
    expect(answer.continuable).toBe(false);
    answer.add([delta('Alpha '), delta('bravo')]);
    expect(answer.text).toBe('Alpha bravo');
    expect(answer.continuable).toBe(true);
  });

  it('is not continued after tool calls, a second choice or a finish', () => {
    const tools = new AnswerSoFar();
    tools.add([delta('x', { tool_calls: [{ index: 0, function: { name: 'f' } }] })]);
    const choices = new AnswerSoFar();
    choices.add([delta('x'), { ...delta('y'), index: 1 }]);
    const finished = new AnswerSoFar();
    finished.add([delta('x', {}, 'stop')]);
    expect([tools.continuable, choices.continuable, finished.continuable]).toEqual([false, false, false]);
  });
});
