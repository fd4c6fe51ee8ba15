// @ts-check
/**
 * Calls the gateway's own HTTP API from the console page. The session cookie goes along
 * (same origin); errors become Error objects carrying the API's message and status.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
export async function api(method, path, body) {
  /** @type {RequestInit} */
  const init = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.headers = { 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const text = await res.text();
  const parsed = text ? safeJson(text) : null;
  if (!res.ok) {
    const message = parsed?.error?.message ?? `${res.status} ${res.statusText}`;
    throw Object.assign(new Error(message), { status: res.status });
  }
  return parsed;
}

/** @param {string} text */
function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Builds a query string from the defined values of an object.
 * @param {Record<string, string | number | undefined | null>} params
 */
export function query(params) {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') search.set(k, String(v));
  const text = search.toString();
  return text ? `?${text}` : '';
}
