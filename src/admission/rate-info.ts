/** Rate-limit figures for the `X-RateLimit-*` headers. */
export interface RateInfo {
  limit: number;
  remaining: number;
  /** Unix seconds when the current window resets. */
  resetAt: number;
  /** True when no request-rate limit applies to the key (no headers are sent then). */
  unlimited?: boolean;
}
