import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDocumentServer, type DocumentServer } from '../../fixtures/documents/document-server.js';
import { createSelfSignedCertificate } from '../../fixtures/documents/self-signed-cert.js';
import { renderTextPng } from '../../fixtures/documents/test-images.js';
import { textPdf } from '../../fixtures/documents/test-pdfs.js';
import { adminClient } from '../../helpers/admin-client.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { spawnWorker, type WorkerProcess } from '../images/spawn-worker.js';

/** Mistral's OCR response as Farebox sends it, plus `usage.cost`. */
interface OcrResponse {
  model: string;
  pages: Array<{ index: number; markdown: string; images: unknown[]; dimensions: { dpi: number; height: number; width: number } | null }>;
  usage_info: { pages_processed: number; doc_size_bytes: number };
  usage: { cost: number };
}

let setup: TestGateway;
let web: WebProcess;
let worker: WorkerProcess;
let client: OpenAI;
let server: DocumentServer;
let accountId: string;

beforeAll(async () => {
  server = await startDocumentServer(createSelfSignedCertificate(['localhost'], ['127.0.0.1']), '127.0.0.1', {
    '/doc.pdf': (_req, res) => res.end('%PDF-1.4'),
  });
  const env = testEnv({ LOG_LEVEL: 'warn', JOB_TIMEOUT_MS: '60000' });
  setup = await startTestGateway({ env });
  const admin = adminClient(setup.url);
  accountId = await admin.createAccount();
  await admin.topup(accountId, 5);
  const { raw } = await admin.mintKey(accountId);
  [web, worker] = await Promise.all([spawnWeb(env), spawnWorker(env)]);
  // The OpenAI SDK has no OCR resource; its generic post() speaks to any JSON endpoint.
  client = new OpenAI({ apiKey: raw, baseURL: `${web.url}/v1`, maxRetries: 0 });
}, 180_000);
afterAll(async () => {
  await Promise.all([web?.stop(), worker?.stop()]);
  await setup?.close();
  await server?.close();
});

const ocr = (document: Record<string, unknown>) => client.post<OcrResponse>('/ocr', { body: { model: 'local/reader', document } });
const dataUrl = (type: string, data: Buffer) => `data:${type};base64,${data.toString('base64')}`;

describe('OCR through web and worker processes', () => {
  it('reads a generated PDF with a text layer', async () => {
    const pdf = await textPdf([['Shipping manifest for Farebox'], ['Seven crates of oranges']]);
    const res = await ocr({ type: 'document_url', document_url: dataUrl('application/pdf', pdf) });
    expect(res.model).toBe('local/reader');
    expect(res.pages).toHaveLength(2);
    expect(res.pages[0]?.markdown).toContain('Shipping manifest for Farebox');
    expect(res.pages[1]?.markdown).toContain('Seven crates of oranges');
    expect(res.usage_info).toEqual({ pages_processed: 2, doc_size_bytes: pdf.length });
    expect(res.usage.cost).toBe(0.002);
  });

  it('reads a rendered image of known text', async () => {
    const png = await renderTextPng(['INVENTORY CHECK', 'Blue bicycles'], 900, 48);
    const res = await ocr({ type: 'image_url', image_url: dataUrl('image/png', png) });
    expect(res.pages).toHaveLength(1);
    expect(res.pages[0]?.markdown).toMatch(/INVENTORY\s+CHECK/);
    expect(res.pages[0]?.markdown).toMatch(/Blue\s+bicycles/);
    expect(res.usage_info.pages_processed).toBe(1);
  });

  it('refuses loopback, private, metadata and plain-http URLs with 400 and fetches nothing', async () => {
    const urls = [
      `https://127.0.0.1:${server.port}/doc.pdf`,
      'https://10.0.0.1/doc.pdf',
      'https://169.254.169.254/latest/meta-data/iam/',
      `http://127.0.0.1:${server.port}/doc.pdf`,
    ];
    for (const url of urls) {
      const err = await ocr({ type: 'document_url', document_url: url }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, url).toBeInstanceOf(APIError);
      expect([(err as APIError).status, (err as APIError).code, (err as APIError).param]).toEqual([400, 'invalid_request', 'document.document_url']);
    }
    expect(server.requests).toEqual([]);
    // Only the two documents read above were charged.
    const charges = await setup.deps.c.ledger.countDocuments({ account_id: accountId, kind: 'charge' });
    expect(charges).toBe(2);
  });
});
