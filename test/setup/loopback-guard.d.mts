/** True for loopback addresses and names (and Node's default host). */
export declare function isLoopbackHost(host: unknown): boolean;
