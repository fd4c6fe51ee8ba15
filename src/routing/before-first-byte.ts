import { GatewayError } from '../platform/errors/index.js';

/**
 * An upstream failure before anything reached the client: the same error as the one it
 * wraps (clients see no difference), marked so the route runner may try another route.
 */
export class BeforeFirstByteError extends GatewayError {
  constructor(readonly original: GatewayError) {
    super(original.code, original.message, {
      param: original.param,
      ...(original.retryAfterSeconds !== undefined ? { retryAfterSeconds: original.retryAfterSeconds } : {}),
      cause: original.cause,
      ...(original.upstream !== undefined ? { upstream: original.upstream } : {}),
    });
  }
}
