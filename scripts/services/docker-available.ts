import http from 'node:http';

/** Where a Docker engine would be listening. */
export type DockerEndpoint = { readonly socketPath: string } | { readonly host: string; readonly port: number };

const DEFAULT_SOCKET = '/var/run/docker.sock';

/**
 * Reads `DOCKER_HOST` the way the Docker CLI does (unix:// or tcp://), defaulting to the local
 * socket. Other schemes (ssh://, npipe://) return undefined: we cannot ping them cheaply.
 */
export function dockerEndpoint(env: Record<string, string | undefined>): DockerEndpoint | undefined {
  const dockerHost = env.DOCKER_HOST?.trim();
  if (!dockerHost) return { socketPath: DEFAULT_SOCKET };
  if (dockerHost.startsWith('unix://')) return { socketPath: dockerHost.slice('unix://'.length) };
  if (dockerHost.startsWith('tcp://')) {
    const url = new URL(`http://${dockerHost.slice('tcp://'.length)}`);
    return { host: url.hostname, port: Number(url.port || 2375) };
  }
  return undefined;
}

/**
 * True when a Docker engine answers `GET /_ping` with 200 within `timeoutMs`. A missing socket,
 * a refused connection or a slow engine all mean "no", so callers fall back to local binaries.
 */
export function dockerAvailable(env: Record<string, string | undefined>, timeoutMs = 1_500): Promise<boolean> {
  const endpoint = dockerEndpoint(env);
  if (!endpoint) return Promise.resolve(false);
  return new Promise((resolve) => {
    const request = http.get({ ...endpoint, path: '/_ping', timeout: timeoutMs }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.once('timeout', () => request.destroy(new Error('docker ping timed out')));
    request.once('error', () => resolve(false));
  });
}
