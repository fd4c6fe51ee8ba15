import { hash } from 'node:crypto';
import { GatewayError } from '../platform/errors/index.js';

/** Longest end-user id accepted (OpenAI's `user` has no documented limit; ids are short). */
export const MAX_END_USER_LENGTH = 256;

/**
 * The tag an end user's admission state and spend buckets are kept under: a digest of the id,
 * so any id (any length or characters) makes a short key that never contains a separator.
 */
export function endUserTag(endUser: string): string {
  return hash('sha256', endUser, 'base64url').slice(0, 22);
}

/** 400 for a key with end-user limits called without naming its end user. */
export function endUserMissing(param: string): GatewayError {
  return new GatewayError(
    'invalid_request',
    `This key applies limits per end user, so each request must name its end user: set \`${param}\` (\`user\` on Chat Completions, Responses, embeddings and images; \`metadata.user_id\` on Messages) or the X-Farebox-End-User header.`,
    { param },
  );
}

/** 400 for an end-user id that is empty or too long. */
export function endUserInvalid(param: string): GatewayError {
  return new GatewayError('invalid_request', `The end user id must be 1 to ${MAX_END_USER_LENGTH} characters.`, { param });
}
