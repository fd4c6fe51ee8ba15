/** Progress messages for people watching a start; never given secrets. */
export type ServiceLog = (message: string) => void;

/** A store process just spawned (not yet ready), so its starter can record it by pid. */
export interface SpawnedService {
  readonly name: 'redis' | 'mongod';
  readonly pid: number;
  /** Where it will answer; mongod can be asked to shut down cleanly there. */
  readonly url: string;
}

/** Told about every store process as soon as it is spawned. */
export type SpawnHook = (spawned: SpawnedService) => void;

/** A started Redis or MongoDB, with the URL clients should use. */
export interface RunningService {
  /** Connection URL (`redis://…` or `mongodb://…`). */
  readonly url: string;
  /** Stops the service and waits for its processes to end; safe to call twice. */
  stop(): Promise<void>;
}

/** How a store was obtained: given by URL, started in Docker, or started from local binaries. */
export type ServiceSource = 'env' | 'testcontainers' | 'local';

/** Which stores a backend should start. */
export interface ServiceNeeds {
  readonly redis: boolean;
  readonly mongo: boolean;
}

/** Stores started by one backend; a store not asked for is absent. */
export interface StartedServices {
  readonly redis?: RunningService;
  readonly mongo?: RunningService;
  /** Stops every store this backend started. */
  stop(): Promise<void>;
}

/** The pair of stores Farebox needs, however they were obtained. */
export interface ResolvedServices {
  readonly redisUrl: string;
  readonly mongoUri: string;
  /** Where each came from, for logs. */
  readonly sources: { readonly redis: ServiceSource; readonly mongo: ServiceSource };
  /** Stops whatever this module started (nothing when URLs came from the environment). */
  stop(): Promise<void>;
}

/** A log that drops everything, for callers that pass none. */
export const silentLog: ServiceLog = () => undefined;
