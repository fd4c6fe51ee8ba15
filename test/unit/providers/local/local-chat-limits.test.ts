import { describe, expect, it } from 'vitest';
import { countTokens } from '../../../../src/billing/tokenizer.js';
import type { ChatCall, ChatRequestBody, ChatResult, ChatStreamEvent } from '../../../../src/providers/chat/chat-types.js';
import { createLocalChat, LOCAL_OUTPUT_LIMIT } from '../../../../src/providers/local/local-chat.js';
import { MAX_SAMPLE_CHARS, sampleFromSchema } from '../../../../src/providers/local/local-chat-schema.js';

const chat = createLocalChat();
const call = (body: Partial<ChatRequestBody>): ChatCall => ({
  upstreamModel: 'echo',
  body: { model: 'local/echo', messages: [{ role: 'user', content: 'Hello world, tell me about the weather in Paris today' }], ...body },
  signal: new AbortController().signal,
});

const tool = (parameters: Record<string, unknown>) => ({ type: 'function' as const, function: { name: 'lookup', parameters } });

/** Everything one choice produced, as the usage counts it. */
function producedTokens(result: ChatResult): number {
  const message = result.choices[0]?.message;
  const calls = (message?.tool_calls ?? []).reduce((n, t) => n + countTokens(t.function.name) + countTokens(t.function.arguments), 0);
  return countTokens(message?.content ?? '') + countTokens(message?.reasoning ?? '') + calls;
}

async function streamed(body: Partial<ChatRequestBody>): Promise<{ text: string; finish: string | null | undefined; completion: number }> {
  let text = '';
  let finish: string | null | undefined;
  let completion = -1;
  for await (const event of chat.stream(call({ ...body, stream: true })) as AsyncIterable<ChatStreamEvent>) {
    if (event.kind === 'usage') completion = event.usage.completionTokens;
    else if (event.kind === 'delta')
      for (const c of event.choices) {
        text += (c.delta.content ?? '') + (c.delta.reasoning ?? '') + (c.delta.tool_calls ?? []).map((t) => (t.function?.name ?? '') + (t.function?.arguments ?? '')).join('');
        finish = c.finish_reason ?? finish;
      }
  }
  return { text, finish, completion };
}

const cases: Array<[string, Partial<ChatRequestBody>]> = [
  ['content', {}],
  ['reasoning and content', { reasoning: { effort: 'high' } }],
  ['tool arguments', { tools: [tool({ type: 'object', properties: { q: { type: 'string', minLength: 500 } }, required: ['q'] })] }],
  ['json_schema content', { response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'array', items: { type: 'string' }, minItems: 100 } } } }],
];

describe('local echo output limits', () => {
  for (const [name, body] of cases) {
    for (const limit of [1, 3, 7]) {
      it(`${name}: max_tokens=${limit} bounds every output, non-streamed and streamed`, async () => {
        for (const field of ['max_tokens', 'max_completion_tokens'] as const) {
          const result = await chat.complete(call({ ...body, [field]: limit }));
          expect(producedTokens(result)).toBeLessThanOrEqual(limit);
          expect(result.usage!.completionTokens).toBeLessThanOrEqual(limit);
          expect(result.choices[0]?.finish_reason).toBe('length');
          const stream = await streamed({ ...body, [field]: limit });
          expect(stream.completion).toBeLessThanOrEqual(limit);
          expect(countTokens(stream.text)).toBeLessThanOrEqual(limit + 2);
          expect(stream.finish).toBe('length');
        }
      });
    }
  }

  it('tool arguments cut at max_tokens are incomplete JSON with finish_reason length, as OpenAI does', async () => {
    const result = await chat.complete(call({ max_tokens: 4, tools: [tool({ type: 'object', properties: { q: { type: 'string', minLength: 200 } }, required: ['q'] })] }));
    const args = result.choices[0]?.message.tool_calls?.[0]?.function.arguments ?? '';
    expect(() => JSON.parse(args) as unknown).toThrow();
    expect(result.choices[0]?.finish_reason).toBe('length');
  });

  it('without max_tokens the output stops at the model output limit', async () => {
    const result = await chat.complete(call({ messages: [{ role: 'user', content: 'word '.repeat(20_000) }] }));
    expect(result.usage!.completionTokens).toBe(LOCAL_OUTPUT_LIMIT);
    expect(result.choices[0]?.finish_reason).toBe('length');
  });

  it('hostile schemas (minLength 2e6, minItems 1e8) answer with bounded output', async () => {
    const hostile = [
      { type: 'object', properties: { s: { type: 'string', minLength: 2_000_000 } }, required: ['s'] },
      { type: 'object', properties: { a: { type: 'array', minItems: 100_000_000, items: { type: 'string', minLength: 1000 } } }, required: ['a'] },
      { type: 'object', properties: { a: { type: 'array', minItems: 100_000_000, items: { type: 'array', minItems: 100_000_000 } } }, required: ['a'] },
    ];
    for (const parameters of hostile) {
      expect(JSON.stringify(sampleFromSchema(parameters, 'x')).length).toBeLessThanOrEqual(MAX_SAMPLE_CHARS + 64);
      const result = await chat.complete(call({ tools: [tool(parameters)], tool_choice: 'required' }));
      expect(result.usage!.completionTokens).toBeLessThanOrEqual(LOCAL_OUTPUT_LIMIT);
      expect(result.choices[0]?.message.tool_calls?.[0]?.function.arguments.length).toBeLessThanOrEqual(MAX_SAMPLE_CHARS + 64);
      const stream = await streamed({ tools: [tool(parameters)], tool_choice: 'required', max_tokens: 50 });
      expect(stream.completion).toBeLessThanOrEqual(50);
    }
  });

  it('samples still satisfy modest schemas', () => {
    const value = sampleFromSchema({ type: 'object', properties: { s: { type: 'string', minLength: 30 }, a: { type: 'array', minItems: 3, items: { type: 'integer' } } }, required: ['s', 'a'] }, 'hi') as { s: string; a: number[] };
    expect(value.s.length).toBe(30);
    expect(value.a).toHaveLength(3);
  });
});
