import { describe, expect, it } from 'vitest';
import { DETACH_MIN_CHARS, isPlainBase64 } from '../../../src/queue/detached-strings.js';
import { decodeReply, decodeReplyBytes, encodeReply, serializeResult } from '../../../src/queue/job-reply.js';

const head = { queue: 'images' as const, id: 'req_1', timing: { queuedAt: 1, startedAt: 2, finishedAt: 3 } };
const long = (char: string): string => char.repeat(DETACH_MIN_CHARS);

describe('job replies', () => {
  it('round-trips a small result as plain JSON', () => {
    const result = { images: [{ b64_json: 'aGk=' }], cost: '5' };
    const text = encodeReply(head, serializeResult(result));
    expect(text).toBe(JSON.stringify({ ...head, result }));
    expect(decodeReply(text)).toEqual({ ...head, result });
  });

  it('carries long base64 strings after the JSON and puts them back where they were', () => {
    const a = `${long('A')}+/=`;
    const b = long('z');
    const result = { images: [{ b64_json: a, revised_prompt: 'a "quoted"\nprompt' }, { b64_json: b }], cost: '5' };
    const serialized = serializeResult(result);
    expect(serialized.strings).toEqual([a, b]);
    expect(serialized.length).toBe(serialized.json.length + a.length + b.length);
    const text = encodeReply(head, serialized);
    expect(text.slice(0, text.indexOf('\n'))).not.toContain(a);
    expect(decodeReply(text)).toEqual({ ...head, result });
  });

  it('reads a reply from its bytes, its detached strings as bytes', () => {
    const a = `${long('A')}+/=`;
    const result = { images: [{ b64_json: a, revised_prompt: 'é "q"' }, { b64_json: 'aGk=' }], cost: '5' };
    const serialized = serializeResult(result);
    const bytes = Buffer.from(encodeReply(head, serialized));
    const decoded = decodeReplyBytes(bytes);
    const image = (decoded?.result as typeof result | undefined)?.images[0] as { b64_json: unknown } | undefined;
    expect(Buffer.isBuffer(image?.b64_json)).toBe(true);
    expect((image?.b64_json as Buffer).toString('latin1')).toBe(a);
    expect(decodeReplyBytes(Buffer.from(encodeReply(head, serializeResult({ cost: '5' }))))).toEqual({ ...head, result: { cost: '5' } });
    expect(decodeReplyBytes(Buffer.concat([bytes, Buffer.from('\nBBBB')]))).toBeUndefined();
  });

  it('leaves long strings that need escaping inside the JSON', () => {
    const odd = `${long('A')}"\n`;
    const result = { text: odd };
    expect(serializeResult(result).strings).toEqual([]);
    expect(decodeReply(encodeReply(head, serializeResult(result)))).toEqual({ ...head, result });
  });

  it('refuses a text whose detached strings do not match their list', () => {
    const text = encodeReply(head, serializeResult({ images: [{ b64_json: long('A') }] }));
    expect(decodeReply(`${text}\nBBBB`)).toBeUndefined();
    expect(decodeReply(text.slice(0, text.indexOf('\n')))).toBeUndefined();
    expect(decodeReply(`${JSON.stringify(head)}\nAAAA`)).toBeUndefined();
  });

  it('tells base64 from text that would need escaping', () => {
    expect(isPlainBase64('aGVsbG8+/w==')).toBe(true);
    expect(isPlainBase64('a"b')).toBe(false);
    expect(isPlainBase64('a\\b')).toBe(false);
    expect(isPlainBase64('ab\n')).toBe(false);
  });
});
