/** Where billed token counts came from: the upstream's usage, or a local count. */
export type TokenSource = 'upstream' | 'counted';
