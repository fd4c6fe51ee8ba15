/**
 * Process lifecycle: boot, draining and shutdown.
 * This file is the module's face: code outside the module imports from here only.
 */
// First, so V8's tiering is set as this module loads (see jit-tiering.ts).
import './jit-tiering.js';
export { boot } from './boot.js';
export { within } from './bounded.js';
export { HttpDrain } from './http-drain.js';
export { idleMemoryStep, returnIdleMemory, type HeldMemory, type IdleMemoryOptions, type MemorySample } from './idle-memory.js';
export { OverloadGauge, type OverloadReason } from './overload.js';
export { ShutdownReport } from './shutdown-report.js';
export { onShutdown, runSteps } from './shutdown.js';
export { STORE_CLOSE_RESERVE_MS, storeShutdownSteps } from './store-steps.js';
