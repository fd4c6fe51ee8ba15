import { dockerAvailable } from './docker-available.js';

/**
 * Exits 0 when a Docker engine answers (DOCKER_HOST or the local socket), 1 otherwise. Used by
 * install-system-packages.sh, which must not install local services on a machine with Docker.
 */
process.exitCode = (await dockerAvailable(process.env)) ? 0 : 1;
