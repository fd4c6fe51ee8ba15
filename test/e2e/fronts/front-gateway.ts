import { adminClient } from '../../helpers/admin-client.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';

/** A spawned web process with a funded key and a key whose account balance is zero. */
export interface FrontGateway {
  setup: TestGateway;
  web: WebProcess;
  funded: { accountId: string; raw: string };
  broke: { accountId: string; raw: string };
  close(): Promise<void>;
}

/** Starts the gateway (release step + operator in process) and a real web process. */
export async function startFrontGateway(): Promise<FrontGateway> {
  const env = testEnv({ LOG_LEVEL: 'warn' });
  const setup = await startTestGateway({ env });
  const admin = adminClient(setup.url);
  const fundedId = await admin.createAccount();
  await admin.topup(fundedId, 5);
  const brokeId = await admin.createAccount();
  // A topped-up account (so not on the free tier) with one nano-USD.
  await admin.topup(brokeId, '0.000000001');
  const funded = { accountId: fundedId, raw: (await admin.mintKey(fundedId)).raw };
  const broke = { accountId: brokeId, raw: (await admin.mintKey(brokeId)).raw };
  // One request spends the lone nano (the overrun is absorbed): the balance is then zero.
  await fetch(`${setup.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${broke.raw}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: 'spend it' }], max_tokens: 5 }),
  });
  const web = await spawnWeb(env);
  return {
    setup,
    web,
    funded,
    broke,
    async close() {
      await web.stop();
      await setup.close();
    },
  };
}

/** Nano-USD of a `usage.cost` number (the API shows USD with nine decimals at most). */
export function nanoOf(usd: number): bigint {
  return BigInt(Math.round(usd * 1e9));
}

/** The ledger charge of one request, in nano-USD. */
export async function chargedFor(gateway: FrontGateway, requestId: string): Promise<bigint | undefined> {
  const entry = await gateway.setup.deps.c.ledger.findOne({ _id: requestId });
  return entry?.cost;
}
