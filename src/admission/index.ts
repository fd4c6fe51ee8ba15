/**
 * Admission: whether a request may start (balance, spend caps, rates, streams) and the settlement of its hold.
 * This file is the module's face: code outside the module imports from here only.
 */
export type { Admission, AdmissionRequest, AdmissionTicket, Authorization } from './admission-types.js';
export type { DeferredRate } from './deferred-rate.js';
export { endUserInvalid, MAX_END_USER_LENGTH } from './end-user.js';
export { rateInfoOf } from './rate-check.js';
export type { RateInfo } from './rate-info.js';
export { recordingAdmission } from './recording-admission.js';
export { withAdmit } from './with-admit.js';
export { createAdmission, type ProcessAdmission } from './create-admission.js';
export type { LeasedAdmission } from './leased-admission.js';
export type { AdmissionMode, RedisAdmission } from './redis-admission.js';
