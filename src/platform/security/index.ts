/**
 * Outbound address policy and SSRF guards.
 * This file is the module's face: code outside the module imports from here only.
 */
export { type AddressPolicy, createAddressPolicy } from './address-policy.js';
export { createPinnedAgent, type GuardedTlsOptions } from './pinned-agent.js';
export { type GuardedTarget, guardUrl, type HostResolver, parseGuardedUrl, systemResolver } from './ssrf-guard.js';
