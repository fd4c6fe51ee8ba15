import { describe, expect, it } from 'vitest';
import { withAdmit } from '../../../src/admission/with-admit.js';
import type { Admission, AdmissionTicket } from '../../../src/admission/index.js';

/** An admission with state of its own, a getter and a method that reads `this`. */
class CountingAdmission {
  admitted = 0;
  get mode(): string {
    return this.admitted > 0 ? 'busy' : 'idle';
  }
  async admit(): Promise<AdmissionTicket> {
    this.admitted += 1;
    return {} as AdmissionTicket;
  }
  count(): number {
    return this.admitted;
  }
}

describe('withAdmit', () => {
  it('replaces admit only: other methods run on the inner admission, its getters read live', async () => {
    const inner = new CountingAdmission();
    const calls: string[] = [];
    const wrapped = withAdmit(inner as unknown as Admission & CountingAdmission, async (request) => {
      calls.push(request.requestId);
      return inner.admit();
    });
    expect(wrapped.mode).toBe('idle');
    await wrapped.admit({ requestId: 'req_1' } as Parameters<Admission['admit']>[0]);
    const { count } = wrapped;
    expect([calls, count(), wrapped.mode]).toEqual([['req_1'], 1, 'busy']);
    // A method read twice is the same function: bound once, not on every read.
    expect(wrapped.count).toBe(wrapped.count);
  });
});
