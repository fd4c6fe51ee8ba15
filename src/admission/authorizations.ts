import type { CatalogModel } from '../catalog/index.js';
import type { KeyDoc } from '../accounts/index.js';
import type { AdmissionRequest, Authorization } from './admission-types.js';

/**
 * The proofs one admission's `authorize` gave out. `admit` honours only these, for the same
 * key and model, so a request is authorized once and a made-up proof skips nothing. Held
 * weakly: a proof ends with its request.
 */
export class Authorizations {
  private readonly issued = new WeakSet<Authorization>();

  /** A proof that the key may use the model (call after the checks passed). */
  issue(key: KeyDoc, model: CatalogModel): Authorization {
    const proof: Authorization = { keyId: key._id, modelId: model.id };
    this.issued.add(proof);
    return proof;
  }

  /** Whether the request carries a proof given out here for its key and model. */
  honours({ authorized, key, model }: AdmissionRequest): boolean {
    return authorized !== undefined && this.issued.has(authorized) && authorized.keyId === key._id && authorized.modelId === model.id;
  }
}
