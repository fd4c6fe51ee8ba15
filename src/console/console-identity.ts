import type { KeyDoc } from '../accounts/index.js';

/** Who a console session acts as, re-checked on every request. */
export type ConsoleIdentity = { mode: 'operator' } | { mode: 'account'; key: KeyDoc };

/** Resolves the request's console session once, on first use (most requests never ask). */
export type ConsoleSessionLoader = () => Promise<ConsoleIdentity | undefined>;
