/** The header that names the end user of a request (wins over the body's field). */
export const END_USER_HEADER = 'x-farebox-end-user';

/** The end user a request names, and the field a refusal points at. */
export interface EndUserNaming {
  /** The id as named (absent: the request names none). */
  readonly id?: string;
  /** The request field that names it on this endpoint. */
  readonly param: string;
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/**
 * Where an endpoint's body names the end user: `metadata.user_id` on Messages (Anthropic's
 * field), `user` everywhere else (OpenAI's: Chat Completions, Responses, embeddings, images).
 */
export function endUserParam(endpoint: string): string {
  return endpoint === '/v1/messages' ? 'metadata.user_id' : 'user';
}

/**
 * The end user a request names: the `X-Farebox-End-User` header (set by an application in
 * front of the gateway), else the endpoint's body field. A non-string field names none.
 */
export function endUserOf(endpoint: string, header: string | undefined, body: unknown): EndUserNaming {
  const param = endUserParam(endpoint);
  if (header !== undefined && header !== '') return { id: header, param: END_USER_HEADER };
  const value = param === 'user' ? field(body, 'user') : field(field(body, 'metadata'), 'user_id');
  return typeof value === 'string' ? { id: value, param } : { param };
}
