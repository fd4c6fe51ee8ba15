import type { Clock } from '../../../src/billing/periods.js';
import { adminClient, call, type JsonResponse } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { admissionTestRouter } from './admission-test-router.js';

/** A clock tests move by hand. */
export interface ManualClock {
  clock: Clock;
  now(): Date;
  set(at: Date | string): void;
  advance(ms: number): void;
}

/** Creates a manual clock starting at `start`. */
export function manualClock(start: Date | string): ManualClock {
  let current = new Date(start).getTime();
  return {
    clock: () => new Date(current),
    now: () => new Date(current),
    set: (at) => {
      current = new Date(at).getTime();
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

/** An in-process gateway with the admission test routes mounted. */
export function startLimitsGateway(options: { env?: Record<string, string>; clock?: Clock } = {}): Promise<TestGateway> {
  return startTestGateway({
    env: options.env ?? testEnv({ LOG_LEVEL: 'warn' }),
    clock: options.clock,
    extensions: (deps) => ({ routers: [admissionTestRouter(deps)] }),
  });
}

/** An account topped up with `amountUsd` (0 = never topped up: free tier) and one key. */
export async function accountWithKey(
  url: string,
  amountUsd: number | string,
  key: Record<string, unknown> = {},
): Promise<{ accountId: string; keyId: string; raw: string }> {
  const admin = adminClient(url);
  const accountId = await admin.createAccount();
  if (Number(amountUsd) > 0) {
    const res = await admin.topup(accountId, amountUsd);
    if (res.status !== 201) throw new Error(`topup ${res.status}`);
  }
  const { keyId, raw } = await admin.mintKey(accountId, key);
  return { accountId, keyId, raw };
}

/** Calls the metered test route. Amounts are nano-USD. */
export function charge(
  url: string,
  raw: string,
  body: { model?: string; estimate?: bigint; cost?: bigint; delay_ms?: number; tokens?: number; billed_tokens?: number; end_user?: string } = {},
): Promise<JsonResponse> {
  return call(url, 'POST', '/test/charge', {
    token: raw,
    body: {
      model: body.model ?? 'local/echo',
      estimate: (body.estimate ?? 0n).toString(),
      cost: (body.cost ?? 0n).toString(),
      delay_ms: body.delay_ms,
      tokens: body.tokens,
      billed_tokens: body.billed_tokens,
      end_user: body.end_user,
    },
  });
}

/** nano-USD from USD. */
export const usd = (amount: number): bigint => BigInt(Math.round(amount * 1e9));
