import { describe, expect, it } from 'vitest';
import { Authorizations } from '../../../src/admission/authorizations.js';
import type { AdmissionRequest } from '../../../src/admission/index.js';
import type { CatalogModel } from '../../../src/catalog/index.js';
import type { KeyDoc } from '../../../src/accounts/index.js';

const key = (id: string) => ({ _id: id }) as KeyDoc;
const model = (id: string) => ({ id }) as CatalogModel;
const request = (keyId: string, modelId: string, authorized: AdmissionRequest['authorized']) =>
  ({ requestId: 'req_1', key: key(keyId), model: model(modelId), authorized, estimate: 1n, stream: false }) as AdmissionRequest;

describe('Authorizations', () => {
  it('honours a proof it gave out, for the same key and model only', () => {
    const issuer = new Authorizations();
    const proof = issuer.issue(key('k1'), model('m1'));
    expect(issuer.honours(request('k1', 'm1', proof))).toBe(true);
    expect(issuer.honours(request('k2', 'm1', proof))).toBe(false);
    expect(issuer.honours(request('k1', 'm2', proof))).toBe(false);
  });

  it('honours no proof it did not give out: none, a copy of one, or another issuer’s', () => {
    const issuer = new Authorizations();
    const proof = issuer.issue(key('k1'), model('m1'));
    expect(issuer.honours(request('k1', 'm1', undefined))).toBe(false);
    expect(issuer.honours(request('k1', 'm1', { ...proof }))).toBe(false);
    expect(issuer.honours(request('k1', 'm1', { keyId: 'k1', modelId: 'm1' }))).toBe(false);
    expect(issuer.honours(request('k1', 'm1', new Authorizations().issue(key('k1'), model('m1'))))).toBe(false);
  });
});
