/** Wraps an async action so every call shares the first call's promise (stop() may be called twice). */
export function runOnce(action: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= action());
}
