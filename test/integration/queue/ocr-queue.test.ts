import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/admin-client.js';
import { startDocumentServer, type DocumentServer } from '../../fixtures/documents/document-server.js';
import { createSelfSignedCertificate } from '../../fixtures/documents/self-signed-cert.js';
import { renderTextPng } from '../../fixtures/documents/test-images.js';
import { textPdf } from '../../fixtures/documents/test-pdfs.js';
import { startQueueGateway, type QueueGateway } from './queue-gateway.js';

let q: QueueGateway;
let key: { accountId: string; raw: string };
let pdf: Buffer;
let server: DocumentServer;
const certificate = createSelfSignedCertificate(['localhost'], ['127.0.0.1']);

beforeAll(async () => {
  pdf = await textPdf([['Invoice number 4711'], ['Total due seventeen dollars']]);
  server = await startDocumentServer(certificate, '127.0.0.1', {
    '/doc.pdf': (_req, res) => {
      res.setHeader('content-type', 'application/pdf');
      res.end(pdf);
    },
  });
  q = await startQueueGateway();
  key = await q.fundedKey();
});
afterAll(async () => {
  await q?.close();
  await server?.close();
});

const ocr = (document: unknown) => call(q.gw.url, 'POST', '/v1/ocr', { token: key.raw, body: { model: 'local/reader', document } });
const dataUrl = (type: string, data: Buffer) => `data:${type};base64,${data.toString('base64')}`;

describe('POST /v1/ocr through the queue', () => {
  it('reads the text layer of a PDF data URL, per page, in Mistral shape, billed per page', async () => {
    const res = await ocr({ type: 'document_url', document_url: dataUrl('application/pdf', pdf) });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('local/reader');
    expect(res.body.pages.map((p: { index: number }) => p.index)).toEqual([0, 1]);
    expect(res.body.pages[0].markdown).toContain('Invoice number 4711');
    expect(res.body.pages[1].markdown).toContain('seventeen dollars');
    expect(res.body.usage_info).toEqual({ pages_processed: 2, doc_size_bytes: pdf.length });
    expect(res.body.usage.cost).toBe(0.002);
    expect((await q.charge(res.headers.get('x-service-request-id') ?? ''))?.cost).toBe(2_000_000n);
  });

  it('reads a rendered image of known text', async () => {
    const png = await renderTextPng(['QUARTERLY REPORT', 'Gateway metrics'], 900, 48);
    const res = await ocr({ type: 'image_url', image_url: dataUrl('image/png', png) });
    expect(res.status).toBe(200);
    expect(res.body.pages).toHaveLength(1);
    expect(res.body.pages[0].markdown).toMatch(/QUARTERLY\s+REPORT/);
    expect(res.body.pages[0].markdown).toMatch(/Gateway\s+metrics/);
  });

  it('refuses private, loopback, metadata and plain-http URLs without fetching or queueing', async () => {
    const urls = [
      `https://127.0.0.1:${server.port}/doc.pdf`,
      'https://10.0.0.1/doc.pdf',
      'https://169.254.169.254/latest/meta-data/',
      `http://127.0.0.1:${server.port}/doc.pdf`,
      `https://[::1]:${server.port}/doc.pdf`,
    ];
    for (const url of urls) {
      const res = await ocr({ type: 'document_url', document_url: url });
      expect(res.status, url).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'document.document_url' });
      expect(await q.charge(res.headers.get('x-service-request-id') ?? '')).toBeNull();
    }
    expect(server.requests).toEqual([]);
    const counts = await q.jobs.queue('ocr').getJobCounts('waiting', 'active', 'delayed', 'failed');
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(0);
  });

  it('refuses a data URL of the wrong type, a chat model and a PDF that is not one', async () => {
    const wrongType = await ocr({ type: 'document_url', document_url: dataUrl('image/png', Buffer.from('x')) });
    expect(wrongType.status).toBe(400);
    const notPdf = await ocr({ type: 'document_url', document_url: dataUrl('application/pdf', Buffer.from('hello')) });
    expect(notPdf.body.error).toMatchObject({ code: 'invalid_request', param: 'document.document_url' });
    const chat = await call(q.gw.url, 'POST', '/v1/ocr', {
      token: key.raw,
      body: { model: 'local/echo', document: { type: 'document_url', document_url: dataUrl('application/pdf', pdf) } },
    });
    expect(chat.body.error.code).toBe('wrong_endpoint');
  });
});

describe('POST /v1/ocr with loopback allowed (test configuration)', () => {
  it('downloads an https document through the guard and recognises it', async () => {
    const local = await startQueueGateway({
      env: { DOCUMENT_FETCH_ALLOW_LOOPBACK: 'true' },
      documentFetch: { tls: { ca: certificate.cert } },
    });
    try {
      const funded = await local.fundedKey();
      const res = await call(local.gw.url, 'POST', '/v1/ocr', {
        token: funded.raw,
        body: { model: 'local/reader', document: { type: 'document_url', document_url: `https://127.0.0.1:${server.port}/doc.pdf` } },
      });
      expect(res.status).toBe(200);
      expect(res.body.pages[0].markdown).toContain('Invoice number 4711');
      expect(server.requests).toEqual(['/doc.pdf']);
    } finally {
      await local.close();
    }
  });
});
