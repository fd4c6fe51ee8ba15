import { expect, it } from 'vitest';
import { GraceReads } from '../../../src/chat/settle/grace-reads.js';
import { upstreamSignal } from '../../../src/chat/routes/upstream-signal.js';

const timing = { maxRequestMs: 3_600_000, usageGraceMs: 60_000 };

function leaving(graceReads: GraceReads, stream = true) {
  const client = new AbortController();
  let left = 0;
  const upstream = upstreamSignal(client.signal, timing, stream, { graceReads, onLeave: () => (left += 1) });
  return { leave: () => client.abort(new Error('client left')), upstream, left: () => left };
}

it('a stream whose client leaves frees its slot at once and reads on under a permit of the bound', () => {
  const bound = new GraceReads(2);
  const a = leaving(bound);
  a.leave();
  expect(a.left()).toBe(1);
  expect(a.upstream.signal.aborted).toBe(false);
  expect(bound.inUse).toBe(1);
  a.upstream.dispose();
  expect(bound.inUse).toBe(0);
});

it('past the bound, a stream whose client leaves is stopped at once; a permit given back lets the next read on', () => {
  const bound = new GraceReads(1);
  const [a, b, c] = [leaving(bound), leaving(bound), leaving(bound)];
  a.leave();
  b.leave();
  expect(a.upstream.signal.aborted).toBe(false);
  expect(b.upstream.signal.aborted).toBe(true);
  expect(b.left()).toBe(1);
  expect(bound.inUse).toBe(1);
  b.upstream.dispose();
  expect(bound.inUse).toBe(1);
  a.upstream.dispose();
  a.upstream.dispose();
  expect(bound.inUse).toBe(0);
  c.leave();
  expect(c.upstream.signal.aborted).toBe(false);
  c.upstream.dispose();
  expect(bound.inUse).toBe(0);
});

it('a non-streamed request takes no permit: it stops when its client leaves', () => {
  const bound = new GraceReads(5);
  const a = leaving(bound, false);
  a.leave();
  expect(a.upstream.signal.aborted).toBe(true);
  expect(bound.inUse).toBe(0);
  a.upstream.dispose();
});
