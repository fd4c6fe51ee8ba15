import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchDocument, type FetchDocumentOptions } from '../../../../src/platform/documents/fetch-document.js';
import { GatewayError } from '../../../../src/platform/errors/gateway-error.js';
import { isPublicAddress } from '../../../../src/platform/security/address-policy.js';
import type { HostResolver } from '../../../../src/platform/security/ssrf-guard.js';
import { startDocumentServer, type DocumentServer } from '../../../fixtures/documents/document-server.js';
import { createSelfSignedCertificate } from '../../../fixtures/documents/self-signed-cert.js';

const PDF = Buffer.from('%PDF-1.7 test document body');
const certificate = createSelfSignedCertificate(['docs.example.test', 'public.example.test', 'localhost'], ['127.0.0.1', '127.0.0.2']);
const param = 'document.document_url';

/** Stands for an internal service: listens on 127.0.0.1, must never be reached by a refused fetch. */
let internal: DocumentServer;
/** Stands for a public site: listens on 127.0.0.2, which the test policy treats as public. */
let publicSite: DocumentServer;

const fakeDns: HostResolver = async (hostname) => {
  if (hostname === 'docs.example.test') return [{ address: '127.0.0.1', family: 4 }];
  if (hostname === 'public.example.test') return [{ address: '127.0.0.2', family: 4 }];
  if (hostname === 'mixed.example.test') return [{ address: '127.0.0.2', family: 4 }, { address: '10.1.2.3', family: 4 }];
  throw new Error(`ENOTFOUND ${hostname}`);
};

/** In this test world 127.0.0.2 is a public address; everything else follows the real rules. */
const testWorldPolicy = (address: string): boolean => address === '127.0.0.2' || isPublicAddress(address);

beforeAll(async () => {
  internal = await startDocumentServer(certificate, '127.0.0.1', {
    '/doc.pdf': (_req, res) => {
      res.setHeader('content-type', 'application/pdf');
      res.end(PDF);
    },
  });
  const internalUrl = `https://127.0.0.1:${internal.port}/doc.pdf`;
  publicSite = await startDocumentServer(certificate, '127.0.0.2', {
    '/doc.pdf': (_req, res) => {
      res.setHeader('content-type', 'application/pdf; charset=binary');
      res.end(PDF);
    },
    '/to-internal': (_req, res) => {
      res.writeHead(302, { location: internalUrl });
      res.end();
    },
    '/to-localhost': (_req, res) => {
      res.writeHead(301, { location: `https://localhost:${internal.port}/doc.pdf` });
      res.end();
    },
    '/to-http': (_req, res) => {
      res.writeHead(302, { location: `http://public.example.test:${publicSite.port}/doc.pdf` });
      res.end();
    },
    '/to-self': (_req, res) => {
      res.writeHead(307, { location: '/doc.pdf' });
      res.end();
    },
    '/loop': (_req, res) => {
      res.writeHead(302, { location: '/loop' });
      res.end();
    },
    '/big': (_req, res) => {
      res.end(Buffer.alloc(5000));
    },
    '/missing': (_req, res) => {
      res.statusCode = 404;
      res.end();
    },
    '/slow': () => undefined,
  });
});

afterAll(async () => {
  await internal.close();
  await publicSite.close();
});

beforeEach(() => {
  internal.requests.length = 0;
  publicSite.requests.length = 0;
});

function base(url: string, extra: Partial<FetchDocumentOptions> = {}): FetchDocumentOptions {
  return { url, param, maxBytes: 1024, timeoutMs: 3000, resolver: fakeDns, tls: { ca: certificate.cert }, ...extra };
}

async function errorOf(promise: Promise<unknown>): Promise<GatewayError> {
  const error: unknown = await promise.then(
    () => new Error('expected the fetch to fail'),
    (e: unknown) => e,
  );
  if (!(error instanceof GatewayError)) throw error;
  return error;
}

describe('fetchDocument refusals (default policy)', () => {
  const port = (): number => internal.port;
  it.each([
    ['loopback literal', () => `https://127.0.0.1:${port()}/doc.pdf`],
    ['private 10/8', () => 'https://10.0.0.1/doc.pdf'],
    ['metadata address', () => 'https://169.254.169.254/latest/meta-data/'],
    ['IPv6 loopback', () => `https://[::1]:${port()}/doc.pdf`],
    ['IPv4-mapped loopback', () => `https://[::ffff:127.0.0.1]:${port()}/doc.pdf`],
    ['decimal loopback', () => `https://2130706433:${port()}/doc.pdf`],
    ['name resolving to loopback', () => `https://docs.example.test:${port()}/doc.pdf`],
    ['plain http', () => `http://127.0.0.1:${port()}/doc.pdf`],
    ['ftp', () => 'ftp://example.com/doc.pdf'],
    ['credentials', () => `https://user:pass@docs.example.test:${port()}/doc.pdf`],
  ])('refuses %s without sending anything', async (_label, url) => {
    const error = await errorOf(fetchDocument(base(url())));
    expect([error.code, error.param]).toEqual(['invalid_request', param]);
    expect(error.message).toMatch(/Refusing to fetch/);
    expect(internal.requests).toEqual([]);
  });

  it('refuses localhost through the system resolver', async () => {
    const error = await errorOf(fetchDocument(base(`https://localhost:${internal.port}/doc.pdf`, { resolver: undefined })));
    expect([error.code, error.param]).toEqual(['invalid_request', param]);
    expect(internal.requests).toEqual([]);
  });

  it('refuses a host with any non-public address', async () => {
    const error = await errorOf(fetchDocument(base(`https://mixed.example.test:${publicSite.port}/doc.pdf`, { addressPolicy: testWorldPolicy })));
    expect(error.code).toBe('invalid_request');
    expect(publicSite.requests).toEqual([]);
  });
});

describe('fetchDocument with loopback allowed (tests only)', () => {
  it('downloads from a pinned address, verifying TLS against the host name', async () => {
    const doc = await fetchDocument(base(`https://docs.example.test:${internal.port}/doc.pdf`, { allowLoopback: true }));
    expect(doc.data.equals(PDF)).toBe(true);
    expect(doc.contentType).toBe('application/pdf');
    expect(internal.requests).toEqual(['/doc.pdf']);
  });

  it('follows a redirect to loopback when loopback is allowed (control for the refusal below)', async () => {
    const doc = await fetchDocument(base(`https://public.example.test:${publicSite.port}/to-internal`, { allowLoopback: true }));
    expect(doc.data.equals(PDF)).toBe(true);
    expect(internal.requests).toEqual(['/doc.pdf']);
  });

  it('rejects an untrusted certificate', async () => {
    const error = await errorOf(fetchDocument(base(`https://docs.example.test:${internal.port}/doc.pdf`, { allowLoopback: true, tls: {} })));
    expect(error.code).toBe('invalid_request');
  });
});

describe('fetchDocument redirects and limits', () => {
  const publicUrl = (path: string): string => `https://public.example.test:${publicSite.port}${path}`;
  const opts = (path: string, extra: Partial<FetchDocumentOptions> = {}) =>
    base(publicUrl(path), { addressPolicy: testWorldPolicy, ...extra });

  it('fetches from the public site and follows a same-site redirect', async () => {
    const doc = await fetchDocument(opts('/to-self'));
    expect(doc.data.equals(PDF)).toBe(true);
    expect(doc.contentType).toBe('application/pdf');
    expect(doc.finalUrl).toBe(publicUrl('/doc.pdf'));
    expect(publicSite.requests).toEqual(['/to-self', '/doc.pdf']);
  });

  it.each(['/to-internal', '/to-localhost', '/to-http'])('re-checks the redirect of %s and refuses it', async (path) => {
    const error = await errorOf(fetchDocument(opts(path, { resolver: async (h) => (h === 'localhost' ? [{ address: '127.0.0.1', family: 4 }] : fakeDns(h)) })));
    expect([error.code, error.param]).toEqual(['invalid_request', param]);
    expect(publicSite.requests).toEqual([path]);
    expect(internal.requests).toEqual([]);
  });

  it('stops after the redirect limit', async () => {
    const error = await errorOf(fetchDocument(opts('/loop', { maxRedirects: 2 })));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/redirects/);
    expect(publicSite.requests).toHaveLength(3);
  });

  it('rejects bodies over the byte limit with payload_too_large', async () => {
    const error = await errorOf(fetchDocument(opts('/big')));
    expect([error.code, error.param]).toEqual(['payload_too_large', param]);
  });

  it('reports an HTTP error status as invalid_request', async () => {
    const error = await errorOf(fetchDocument(opts('/missing')));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/404/);
  });

  it('gives up with upstream_timeout when the server never answers', async () => {
    const error = await errorOf(fetchDocument(opts('/slow', { timeoutMs: 300 })));
    expect(error.code).toBe('upstream_timeout');
  });

  it('refuses a name that does not resolve', async () => {
    const error = await errorOf(fetchDocument(base('https://nowhere.example.test/doc.pdf')));
    expect([error.code, error.param]).toEqual(['invalid_request', param]);
  });
});
