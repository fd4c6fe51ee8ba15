import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/platform/errors/gateway-error.js';
import { decodeSse, parseSseJson, type SseEvent } from '../../../../src/providers/sse/sse-decoder.js';

async function* chunks(parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield part;
}

async function collect(parts: Uint8Array[]): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of decodeSse(chunks(parts))) out.push(event);
  return out;
}

function splitAt(bytes: Uint8Array, points: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    out.push(bytes.subarray(start, point));
    start = point;
  }
  return out;
}

const STREAM =
  ': keep-alive comment\r\n\r\n' +
  'event: message_start\ndata: {"a":"héllo 🌍"}\n\n' +
  'data: line one\ndata: line two\n\n' +
  'data: [DONE]\n\n';

const EXPECTED: SseEvent[] = [
  { event: 'message_start', data: '{"a":"héllo 🌍"}' },
  { data: 'line one\nline two' },
  { data: '[DONE]' },
];

describe('decodeSse', () => {
  it('decodes the same events at every single split point', async () => {
    const bytes = new TextEncoder().encode(STREAM);
    for (let point = 0; point <= bytes.length; point++) {
      expect(await collect(splitAt(bytes, [point]))).toEqual(EXPECTED);
    }
  });

  it('decodes byte-by-byte delivery', async () => {
    const bytes = new TextEncoder().encode(STREAM);
    const single = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
    expect(await collect(single)).toEqual(EXPECTED);
  });

  it('rejects a stream cut off in the middle of an event', async () => {
    const bytes = new TextEncoder().encode('data: {"a":1}\n\ndata: {"b":');
    const events: SseEvent[] = [];
    await expect(async () => {
      for await (const event of decodeSse(chunks([bytes]))) events.push(event);
    }).rejects.toMatchObject({ code: 'upstream_error' });
    expect(events).toEqual([{ data: '{"a":1}' }]);
  });

  it('rejects lines that are not server-sent events', async () => {
    const bytes = new TextEncoder().encode('data: {"a":1}\n\n<html>Bad gateway</html>\n\n');
    await expect(collect([bytes])).rejects.toMatchObject({ code: 'upstream_error' });
  });

  it('passes transport errors through unchanged', async () => {
    const boom = new GatewayError('upstream_timeout', 'stalled');
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield new TextEncoder().encode('data: 1\n\n');
      throw boom;
    }
    const seen: string[] = [];
    await expect(async () => {
      for await (const event of decodeSse(failing())) seen.push(event.data);
    }).rejects.toBe(boom);
    expect(seen).toEqual(['1']);
  });
});

describe('parseSseJson', () => {
  it('parses JSON and maps garbage to upstream_error', () => {
    expect(parseSseJson('{"x":1}')).toEqual({ x: 1 });
    expect(() => parseSseJson('{"x":')).toThrow(GatewayError);
  });
});

describe('decodeSse on what real upstreams send', () => {
  const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

  it('keeps a last event that has no closing blank line (recorded proxy ending)', async () => {
    const text = readFileSync(new URL('../../../fixtures/recorded/openai-compatible/anthropic-compat-tool-call-done-no-blank-line.sse', import.meta.url), 'utf8');
    expect(text.endsWith('data: [DONE]\n')).toBe(true);
    const all = bytes(text);
    for (const parts of [[all], Array.from(all, (_, i) => all.subarray(i, i + 1))]) {
      const events = await collect(parts);
      expect(events.at(-1)).toEqual({ data: '[DONE]' });
      expect(events.slice(0, -1).every((e) => typeof parseSseJson(e.data) === 'object')).toBe(true);
    }
  });

  it('accepts comments, event: lines and CRLF, with and without the final blank line', async () => {
    const crlf = ': ping\r\nevent: message_start\r\ndata: {"a":1}\r\n\r\n:comment\r\nevent: message_stop\r\nid: 7\r\nretry: 100\r\ndata: {"b":2}\r\n';
    const expected = [{ event: 'message_start', data: '{"a":1}' }, { event: 'message_stop', data: '{"b":2}' }];
    expect(await collect([bytes(crlf)])).toEqual(expected);
    expect(await collect([bytes(`${crlf}\r\n`)])).toEqual(expected);
    expect(await collect([bytes(crlf.replaceAll('\r\n', '\r'))])).toEqual(expected);
    const all = bytes(crlf);
    expect(await collect(Array.from(all, (_, i) => all.subarray(i, i + 1)))).toEqual(expected);
  });

  it('still rejects a stream that stops inside a line', async () => {
    await expect(collect([bytes('data: {"a":1}\n\ndata: [DONE]')])).rejects.toMatchObject({ code: 'upstream_error' });
  });
});
