import type { CatalogModel } from '../catalog/index.js';
import type { KeyDoc } from '../accounts/index.js';
import type { AdmissionRequest, Authorization } from './admission-types.js';

/**
 * A proof that a key may use a model. Only this module makes one, and each names the
 * Authorizations that gave it out, so a made-up proof, or one from another admission, is
 * honoured nowhere. (A private brand rather than a WeakSet of proofs: a request pays for a
 * field store, not a weak-table entry the collector must also visit.)
 */
class Proof implements Authorization {
  readonly #issuer: Authorizations;

  constructor(issuer: Authorizations, readonly keyId: string, readonly modelId: string) {
    this.#issuer = issuer;
  }

  /** Whether `proof` was given out by `issuer`. */
  static issuedBy(proof: Authorization, issuer: Authorizations): boolean {
    return #issuer in proof && proof.#issuer === issuer;
  }
}

/**
 * The proofs one admission's `authorize` gave out. `admit` honours only these, for the same
 * key and model, so a request is authorized once and a made-up proof skips nothing. A proof
 * ends with its request.
 */
export class Authorizations {
  /** A proof that the key may use the model (call after the checks passed). */
  issue(key: KeyDoc, model: CatalogModel): Authorization {
    return new Proof(this, key._id, model.id);
  }

  /** Whether the request carries a proof given out here for its key and model. */
  honours({ authorized, key, model }: AdmissionRequest): boolean {
    return authorized !== undefined && Proof.issuedBy(authorized, this) && authorized.keyId === key._id && authorized.modelId === model.id;
  }
}
