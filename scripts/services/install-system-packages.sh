#!/usr/bin/env bash
# Runs before `npm start` and `npm test` (and from .ci/run). Makes sure the stores those commands
# start will be there, following DESIGN §8:
#   REDIS_URL and MONGODB_URI set      nothing to do: existing servers are used
#   a Docker engine answers            nothing to install: testcontainers runs Redis and MongoDB
#   Debian without Docker              apt-get installs what is missing (as root, or with sudo):
#                                        redis-server   Redis, when REDIS_URL is not set
#                                        wine, wine64   the official Windows build of mongod,
#                                                       when MONGODB_URI is not set
#   anywhere else without Docker       prints what to install; fails only if it is missing
#   CI=true on Debian                  also chromium, for the console's browser test
# FAREBOX_SERVICES=local skips the Docker check (as resolve-services.ts does).
set -euo pipefail
here=${BASH_SOURCE[0]%/*}
[[ "$here" == "${BASH_SOURCE[0]}" ]] && here=.
cd "$here/../.."

say() { echo "[install-system-packages] $*"; }

# The console's browser test drives Debian's chromium (no browser download). CI (.ci/run sets
# CI=true) installs it; elsewhere the test skips with a message when chromium is missing.
if [[ "${CI:-}" == true && -f /etc/debian_version ]] && ! command -v chromium >/dev/null 2>&1; then
  say "installing chromium with apt-get (console browser test)"
  sudo_if_needed=(); [[ $(id -u) -ne 0 ]] && sudo_if_needed=(sudo)
  "${sudo_if_needed[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  "${sudo_if_needed[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
fi

need_redis=false
need_mongo=false
[[ -z "${REDIS_URL:-}" ]] && need_redis=true
[[ -z "${MONGODB_URI:-}" ]] && need_mongo=true
if [[ $need_redis == false && $need_mongo == false ]]; then
  exit 0  # existing servers are given; nothing local is needed
fi

# True when a Docker engine answers. Uses the same ping as the service resolver when the
# project's dependencies are installed (npm start, npm test), else the docker CLI if present.
docker_answers() {
  if [[ -d node_modules/tsx ]] && command -v node >/dev/null 2>&1; then
    node --import tsx scripts/services/docker-available-cli.ts
  elif command -v docker >/dev/null 2>&1; then
    docker info >/dev/null 2>&1
  else
    return 1
  fi
}

if [[ "${FAREBOX_SERVICES:-auto}" != local ]] && docker_answers; then
  say "a Docker engine answers: Redis and MongoDB will run in containers; nothing to install"
  exit 0
fi

missing=()   # commands
packages=()  # Debian packages that provide them
if [[ $need_redis == true ]] && ! command -v redis-server >/dev/null 2>&1; then
  missing+=(redis-server); packages+=(redis-server)
fi
if [[ $need_mongo == true ]] && ! { command -v wine >/dev/null 2>&1 && command -v wineserver >/dev/null 2>&1; }; then
  missing+=(wine wineserver); packages+=(wine wine64)
fi
if [[ ${#missing[@]} -eq 0 ]]; then
  say "local services available (redis-server and/or wine already installed)"
  exit 0
fi

explain() {
  echo "[install-system-packages] missing: ${missing[*]}. Either start a Docker engine (Docker Desktop, Colima, dockerd)," >&2
  echo "  and npm start / npm test run Redis and MongoDB in containers, or install:" >&2
  if [[ "$(uname -s)" == Darwin ]]; then
    echo "    brew install redis                 (redis-server)" >&2
    echo "    brew install --cask wine-stable    (wine, to run mongod.exe; or set MONGODB_URI to a MongoDB replica set)" >&2
  else
    echo "    redis-server                       (Debian/Ubuntu: redis-server; Fedora: redis; Arch: redis)" >&2
    echo "    wine64                             (Debian/Ubuntu: wine wine64; or set MONGODB_URI to a MongoDB replica set)" >&2
  fi
  echo "  or set REDIS_URL and MONGODB_URI to servers you already run." >&2
}

if [[ ! -f /etc/debian_version ]] || ! command -v apt-get >/dev/null 2>&1; then
  explain
  exit 1
fi

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  explain
  echo "  (this is Debian: as root, apt-get install -y ${packages[*]})" >&2
  exit 1
fi

say "installing ${packages[*]} with apt-get"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${packages[@]}"
