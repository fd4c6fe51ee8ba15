import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { balanceEvents, reachedThresholds } from '../../../src/webhooks/thresholds.js';
import { mintWebhookSecret, signatureHeaders } from '../../../src/webhooks/webhook-signature.js';

describe('Standard Webhooks signatures', () => {
  it('verify with the reference library, and fail for another secret or a changed body', () => {
    const secret = mintWebhookSecret();
    const body = JSON.stringify({ type: 'balance.low', data: { balance_usd: 1.5 } });
    const headers = signatureHeaders([secret], 'evt_1', Math.floor(Date.now() / 1000), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(mintWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace('1.5', '2.5'), headers)).toThrow();
  });

  it('carry one signature per secret during a rotation, each verifying on its own', () => {
    const [current, previous] = [mintWebhookSecret(), mintWebhookSecret()];
    const headers = signatureHeaders([current, previous], 'evt_2', Math.floor(Date.now() / 1000), '{}');
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify('{}', headers)).toEqual({});
    expect(new Webhook(previous).verify('{}', headers)).toEqual({});
  });

  it('match the library for the same inputs', () => {
    const secret = mintWebhookSecret();
    const at = new Date('2026-11-27T00:00:00Z');
    expect(signatureHeaders([secret], 'msg_x', at.getTime() / 1000, 'payload')['webhook-signature']).toBe(new Webhook(secret).sign('msg_x', at, 'payload'));
  });
});

describe('crossings', () => {
  it('reach each budget threshold at or below the spend', () => {
    expect(reachedThresholds(49n, 100n)).toEqual([]);
    expect(reachedThresholds(50n, 100n)).toEqual([50]);
    expect(reachedThresholds(96n, 100n)).toEqual([50, 80, 95]);
    expect(reachedThresholds(130n, 100n)).toEqual([50, 80, 95, 100]);
    expect(reachedThresholds(10n, 0n)).toEqual([]);
  });

  it('call for balance.low then balance.depleted, and nothing for an account never funded', () => {
    expect(balanceEvents(600n, 1000n, 500n)).toEqual([]);
    expect(balanceEvents(500n, 1000n, 500n)).toEqual(['balance.low']);
    expect(balanceEvents(0n, 1000n, 500n)).toEqual(['balance.low', 'balance.depleted']);
    expect(balanceEvents(0n, 1000n, undefined)).toEqual(['balance.depleted']);
    expect(balanceEvents(0n, 0n, 500n)).toEqual([]);
  });
});
