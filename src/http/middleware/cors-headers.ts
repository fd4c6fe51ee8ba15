import { REQUEST_ID_ALIAS, REQUEST_ID_HEADER } from './request-id.js';

/** Response headers browsers may read: request ids, retry advice, rate-limit figures and what the response cache did. */
export const EXPOSED_HEADERS: readonly string[] = [
  REQUEST_ID_HEADER,
  REQUEST_ID_ALIAS,
  'x-should-retry',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Farebox-Cache',
];
