/**
 * Configuration, read once from the environment.
 * This file is the module's face: code outside the module imports from here only.
 */
export { type AdmissionSettings, type Config, ConfigError, type KeepAliveSettings, type LedgerAck, loadConfig, type OverloadSettings, type RequestTiming, type TracingSettings, type WebhookSettings } from './config.js';
export { packageRoot } from './package-root.js';
