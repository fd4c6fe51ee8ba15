import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../scripts/admin/admin-commands.js';
import { adminClient, call, type JsonResponse } from '../../helpers/admin-client.js';
import type { TestGateway } from '../../helpers/test-gateway.js';
import { accountWithKey, charge, startLimitsGateway, usd } from '../admission/limits-fixtures.js';
import { expectExactMoney, reportedByTestRoute } from './money-invariants.js';
import { keyLifetimeSpend } from '../../helpers/key-spend.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startLimitsGateway();
});
afterAll(async () => {
  await gw?.close();
});

const UNIT = usd(0.001);

async function rotate(way: number, keyId: string, mgmtRaw: string): Promise<{ status: number; body: Record<string, any> }> {
  if (way === 0) return adminClient(gw.url).call('POST', `/keys/${keyId}/rotate`);
  if (way === 1) return call(gw.url, 'POST', `/v1/keys/${keyId}/rotate`, { token: mgmtRaw });
  const body = (await COMMANDS['keys:rotate']!.run(gw.deps, { positionals: [keyId], options: {} })) as Record<string, any>;
  return { status: 200, body };
}

describe('key rotation against spend caps', () => {
  it('keeps id, spend and cap across repeated rotations: total spend stays within the cap', async () => {
    const { accountId, keyId, raw: first } = await accountWithKey(gw.url, 1, { limits: { rpm: 10_000, spend_cap_usd: { day: 0.01 } } });
    const mgmt = await adminClient(gw.url).mintKey(accountId, { role: 'management' });
    const answers: JsonResponse[] = [];
    let raw = first;
    for (let round = 0; round < 6; round++) {
      answers.push(...(await Promise.all(Array.from({ length: 4 }, () => charge(gw.url, raw, { estimate: UNIT, cost: UNIT })))));
      // Take turns: operator API, the account's own management key, and the operator CLI.
      const rotated = await rotate(round % 3, keyId, mgmt.raw);
      expect(rotated.status).toBe(200);
      expect(rotated.body.data.key_id).toBe(keyId);
      expect(rotated.body.data.limits.spend_cap_usd).toEqual({ day: 0.01 });
      expect((await call(gw.url, 'GET', '/v1/key', { token: raw })).status).toBe(401);
      raw = rotated.body.key as string;
    }
    const admitted = answers.filter((r) => r.status === 200).length;
    for (const r of answers) expect([200, 403]).toContain(r.status);
    // 24 asked over 6 secrets; the cap allows 10 in all.
    expect(admitted).toBe(10);
    expect(await keyLifetimeSpend(gw.deps.c, keyId)).toBe(10n * UNIT);
    await expectExactMoney(gw.deps, accountId, reportedByTestRoute(answers), { capNano: usd(0.01) });
    console.info(`[fault] rotation x6 against a 10-unit day cap: admitted ${admitted}/10, overspend 0 USD`);
  });
});
