import type { z } from 'zod';
import { GatewayError } from '../errors/index.js';

/**
 * Validates input against a schema; the first problem becomes a 400 `invalid_request`
 * whose `param` is the dotted path of the offending field.
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown, prefix?: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = [...(prefix ? [prefix] : []), ...(issue?.path ?? []).map(String)].join('.');
  const message = issue ? `${path ? `${path}: ` : ''}${issue.message}` : 'Invalid request';
  throw new GatewayError('invalid_request', message, { param: path || null });
}
