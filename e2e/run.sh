#!/usr/bin/env bash
# Browser tests of the web page: installs what is missing (Debian's
# chromium, the npm packages), type-checks the page's modules (TypeScript
# over their JSDoc types: `npm run typecheck`), builds the binary, runs
# the tests.
#   e2e/run.sh                 # everything
#   e2e/run.sh tests/site.test.js   # one file
#   CHESSMERGE_BIN=path e2e/run.sh   # test that binary, skip the build
# Screenshots land in e2e/artifacts/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

if [ ! -x /usr/bin/chromium ]; then
  echo "e2e: installing chromium" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y chromium
fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "e2e: node and npm are needed (apt-get install -y nodejs npm)" >&2
  exit 1
fi

cd "$here"
if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/typescript ] || [ ! -d node_modules/axe-core ]; then
  npm ci --no-audit --no-fund
fi
# A type error in web/js fails here, before anything is built.
npm run --silent typecheck

if [ -z "${CHESSMERGE_BIN:-}" ]; then
  target="${CARGO_TARGET_DIR:-$repo/target}"
  case "$target" in /*) ;; *) target="$repo/$target" ;; esac
  bin="$target/debug/chessmerge"
  # rust-embed does not tell cargo about web/: a binary compiled before a
  # file there was added or changed may not serve it. Recompile the server
  # crate then (its source is untouched; only the timestamp of the file
  # that embeds web/ changes).
  embed="$(grep -rl 'derive(rust_embed::RustEmbed)' "$repo/crates/server/src" | head -n 1)"
  if [ -e "$bin" ] && [ -n "$embed" ] && [ -n "$(find "$repo/web" -newer "$bin" -print -quit)" ]; then
    touch "$embed"
  fi
  (cd "$repo" && cargo build -p chessmerge)
  export CHESSMERGE_BIN="$bin"
fi

# The tests' players all come from loopback, many to an address: lift the
# request rates (docs/security.md, "Limits") of the servers they start,
# unless the caller set them.
export CHESSMERGE_ANONYMOUS_RATE="${CHESSMERGE_ANONYMOUS_RATE:-1000000}"
export CHESSMERGE_ANONYMOUS_BURST="${CHESSMERGE_ANONYMOUS_BURST:-1000000}"
export CHESSMERGE_USER_RATE="${CHESSMERGE_USER_RATE:-1000000}"
export CHESSMERGE_USER_BURST="${CHESSMERGE_USER_BURST:-1000000}"
export CHESSMERGE_REGISTRATIONS_PER_HOUR="${CHESSMERGE_REGISTRATIONS_PER_HOUR:-1000000}"

rm -rf "$here/artifacts"
mkdir -p "$here/artifacts"
# Arguments name test files (default: all of tests/).
if [ "$#" -eq 0 ]; then set -- tests/; fi
node --test --test-concurrency=1 "$@"
