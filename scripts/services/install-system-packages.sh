#!/usr/bin/env bash
# Installs the Debian packages the local services need, only when they are missing:
#   wine + wine64   run the official Windows build of mongod (see DESIGN §8; no Linux mongod here)
#   redis-server    Redis for BullMQ, limits and caches
# Idempotent and quick when everything is present. Not needed on machines with a Docker engine,
# or when REDIS_URL and MONGODB_URI point at existing servers.
set -euo pipefail

if [[ -n "${REDIS_URL:-}" && -n "${MONGODB_URI:-}" ]]; then
  exit 0  # existing servers are given; nothing local is needed
fi

packages=()
command -v wine >/dev/null 2>&1 && command -v wineserver >/dev/null 2>&1 || packages+=(wine wine64)
command -v redis-server >/dev/null 2>&1 || packages+=(redis-server)

if [[ ${#packages[@]} -eq 0 ]]; then
  echo "[install-system-packages] wine and redis-server already installed"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "[install-system-packages] missing ${packages[*]} and no apt-get; install them with your package manager" >&2
  exit 1
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi

echo "[install-system-packages] installing ${packages[*]}"
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${packages[@]}"
