/**
 * The operator console: sign-in, sessions and its static pages.
 * This file is the module's face: code outside the module imports from here only.
 */
export { loadConsoleAssets } from './console-assets.js';
export { CONSOLE_HEADERS } from './console-headers.js';
export type { ConsoleIdentity, ConsoleSessionLoader } from './console-identity.js';
export { operatorTokenHash, type SessionRecord, SessionStore } from './session-store.js';
export { SignInLimiter } from './sign-in-limiter.js';
export { signInRecord } from './sign-in.js';
