import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fundedKey } from '../chat/chat-client.js';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

interface LogLine {
  level: number;
  request_id?: string;
  path?: string;
  status?: number;
}

const logLines = (): LogLine[] =>
  gw
    .logs()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

describe('a client that leaves before its answer', () => {
  it('is logged, counted and recorded as 499, not as a 404 and a gateway error', async () => {
    const key = await fundedKey(gw.url, 1);
    const opened = new Promise<string>((resolve) => {
      const open = gw.deps.requests.open.bind(gw.deps.requests);
      vi.spyOn(gw.deps.requests, 'open').mockImplementation((requestId, endpoint) => {
        resolve(requestId);
        return open(requestId, endpoint);
      });
    });
    const leaving = new AbortController();
    // Twenty deltas 200 ms apart: the answer is seconds away when the client leaves.
    const body = { model: 'local/echo', messages: [{ role: 'user', content: 'slowly [[local:slow=200]] [[local:chunks=20]]' }] };
    const call = fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.raw}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: leaving.signal,
    });
    const requestId = await opened;
    leaving.abort();
    await expect(call).rejects.toThrow();

    const access = await waitFor('the access line of the request', () => logLines().find((line) => line.request_id === requestId && line.path !== undefined));
    expect(access).toMatchObject({ level: 30, path: '/v1/chat/completions', status: 499 });
    expect(logLines().filter((line) => line.request_id === requestId && line.level >= 50)).toEqual([]);

    const { body: metrics } = await gw.deps.metrics.render();
    expect(metrics).toMatch(/^farebox_http_requests_total\{method="POST",route="\/v1\/chat\/completions",status="499"\} 1$/m);
    expect(metrics).not.toMatch(/^farebox_http_requests_total\{[^}]*status="404"\}/m);

    await gw.deps.requests.drain();
    const record = await gw.deps.c.requestRecords.findOne({ _id: requestId });
    expect(record?.status).toBe(499);
  });
});
