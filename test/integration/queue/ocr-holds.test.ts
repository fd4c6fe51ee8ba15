import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startDocumentServer, type DocumentServer } from '../../fixtures/documents/document-server.js';
import { createSelfSignedCertificate } from '../../fixtures/documents/self-signed-cert.js';
import { blankPdf } from '../../fixtures/documents/test-pdfs.js';
import { startQueueGateway, type QueueGateway } from './queue-gateway.js';

const PAGES = 12;
const certificate = createSelfSignedCertificate(['localhost'], ['127.0.0.1']);
let server: DocumentServer;
let q: QueueGateway;

beforeAll(async () => {
  const pdf = await blankPdf(PAGES);
  server = await startDocumentServer(certificate, '127.0.0.1', {
    '/long.pdf': (_req, res) => {
      res.setHeader('content-type', 'application/pdf');
      res.end(pdf);
    },
  });
  q = await startQueueGateway({ env: { DOCUMENT_FETCH_ALLOW_LOOPBACK: 'true' }, documentFetch: { tls: { ca: certificate.cert } } });
}, 60_000);
afterAll(async () => {
  await q?.close();
  await server?.close();
});

async function keyWith(usd: string): Promise<{ accountId: string; raw: string }> {
  const admin = adminClient(q.gw.url);
  const accountId = await admin.createAccount('ocr-holds');
  await admin.topup(accountId, usd);
  return { accountId, raw: (await admin.mintKey(accountId)).raw };
}

const ocrLong = (raw: string) =>
  call(q.gw.url, 'POST', '/v1/ocr', {
    token: raw,
    body: { model: 'local/reader', document: { type: 'document_url', document_url: `https://127.0.0.1:${server.port}/long.pdf` } },
  });

describe('OCR of a downloaded document holds its real page count', () => {
  it('refuses with 402 saying how many pages fit when the real count does not fit, charging nothing', async () => {
    // $0.011 covers the 10 pages assumed before the download, not the 12 the PDF has.
    const { accountId, raw } = await keyWith('0.011');
    const res = await ocrLong(raw);
    expect(res.status).toBe(402);
    expect(res.body.error.message).toContain('At most 11 pages fit');
    expect(await q.gw.deps.c.ledger.countDocuments({ account_id: accountId, kind: 'charge' })).toBe(0);
    expect((await q.gw.deps.accounts.get(accountId)).balance).toBe(11_000_000n);
  });

  it('charges every page within the hold when the balance covers them', async () => {
    const { accountId, raw } = await keyWith('1');
    const res = await ocrLong(raw);
    expect(res.status).toBe(200);
    expect(res.body.usage_info.pages_processed).toBe(PAGES);
    const charges = await q.gw.deps.c.ledger.find({ account_id: accountId, kind: 'charge' }).toArray();
    expect(charges.map((e) => [e.cost, e.absorbed])).toEqual([[BigInt(PAGES) * 1_000_000n, 0n]]);
  });
});
