/**
 * Vitest setup file: tests reach only this machine. The guard refuses any socket to a
 * non-loopback host, which covers fetch, undici agents, node:http and store clients alike.
 * Spawned processes get the same guard through {@link LOOPBACK_GUARD_OPTIONS}.
 */
import { fileURLToPath } from 'node:url';
import './loopback-guard.mjs';

/** `NODE_OPTIONS` that load the guard into a spawned Node process. */
export const LOOPBACK_GUARD_OPTIONS = `--import=${fileURLToPath(new URL('./loopback-guard.mjs', import.meta.url))}`;
