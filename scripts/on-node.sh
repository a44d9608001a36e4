#!/usr/bin/env bash
# Runs a command, by default the test suite, on another Node.js line than the
# machine's (CI runs the suite on 22 and 24 after `npm test` on the machine's
# Node):
#   1. that line's newest binary, from the npm registry's node-linux-<arch>
#      package (its headers are in include/), cached by version;
#   2. better-sqlite3 compiled for it, cached by its version and Node's ABI:
#      it is built against V8 itself, whereas tree-sitter, the grammars and
#      the FAISS addon use Node-API and load on every line as they are;
#   3. the command with that Node first on PATH and that better-sqlite3 in
#      place for the run only (the machine's build is put back on exit,
#      whatever happens).
# Needs `npm test` (or `bash scripts/setup.sh`) to have run once: the
# dependencies, the addon and dist/ are the machine's.
# Usage: bash scripts/on-node.sh LINE [COMMAND [ARGUMENTS...]]
#   bash scripts/on-node.sh 24                          the whole suite
#   bash scripts/on-node.sh 24 npx vitest run test/store  part of it
#   bash scripts/on-node.sh 22 bash bench/search-exits.sh 100
# Cache: $OCVECTOR_CACHE, else $XDG_CACHE_HOME/ocvector, else ~/.cache/ocvector.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

line=${1:?usage: bash scripts/on-node.sh LINE [COMMAND [ARGUMENTS...]]}
shift
[[ $line =~ ^[0-9]+$ ]] || { echo "on-node: LINE is a major version such as 24, got '$line'" >&2; exit 2; }
say() { printf 'on-node %s: %s\n' "$line" "$*" >&2; }

case $(uname -m) in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "on-node: no Node.js package on the npm registry for $(uname -m)" >&2; exit 2 ;;
esac
cache=${OCVECTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ocvector}
package=node-linux-$arch

# --- 1. the binary ------------------------------------------------------------
# The newest of the versions on stdin: npm's JSON (a string or a list), or one a line.
newest() { node -e 'const text = require("fs").readFileSync(0, "utf8").trim();
  const list = !text ? [] : /^["[]/.test(text) ? [].concat(JSON.parse(text)) : text.split("\n");
  const key = (s) => s.split(".").map(Number); list.sort((a, b) => { const [x, y] = [key(a), key(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i]; return 0; }); console.log(list.at(-1) ?? "");'; }
version=$(npm view "$package@$line" version --json 2>/dev/null | newest || true)
if [[ -z $version ]]; then
  # No registry: the newest one cached before.
  version=$(ls "$cache/node" 2>/dev/null | grep "^$line\." | newest)
  [[ -n $version ]] || { echo "on-node: cannot reach the npm registry for $package@$line, and none is cached in $cache/node" >&2; exit 1; }
fi
node_dir=$cache/node/$version
if [[ ! -x $node_dir/bin/node ]]; then
  say "fetching Node.js $version"
  work=$(mktemp -d)
  (cd "$work" && npm pack --silent "$package@$version" >/dev/null && mkdir unpacked && tar xzf ./*.tgz -C unpacked --strip-components=1)
  mkdir -p "$cache/node"
  rm -rf "$node_dir" && mv "$work/unpacked" "$node_dir"
  rm -rf "$work"
fi
export PATH="$node_dir/bin:$PATH"
# Anything built during the run (the package test's install) is built for this Node.
export npm_config_nodedir=$node_dir

# --- 2. better-sqlite3 for it -------------------------------------------------
sqlite_version=$(node -p 'require("./node_modules/better-sqlite3/package.json").version')
abi=$(node -p 'process.versions.modules')
built=$cache/better-sqlite3/$sqlite_version-node$abi-$arch/better_sqlite3.node
if [[ ! -f $built ]]; then
  say "building better-sqlite3 $sqlite_version for Node.js $version (once)"
  work=$(mktemp -d)
  cp -r node_modules/better-sqlite3/. "$work/"
  rm -rf "$work/build"
  gyp=$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js
  log=$work/build.log
  (cd "$work" && node "$gyp" rebuild --release >"$log" 2>&1) || { cat "$log" >&2; echo "on-node: building better-sqlite3 failed" >&2; exit 1; }
  mkdir -p "$(dirname "$built")"
  cp "$work/build/Release/better_sqlite3.node" "$built.tmp" && mv "$built.tmp" "$built"
  rm -rf "$work"
fi

# --- 3. the suite -------------------------------------------------------------
installed=node_modules/better-sqlite3/build/Release/better_sqlite3.node
saved=$(mktemp)
cp "$installed" "$saved"
trap 'cp "$saved" "$installed"; rm -f "$saved"' EXIT
trap 'exit 130' INT TERM
cp "$built" "$installed"
if (($# == 0)); then
  say "running the suite on $(node --version)"
  set -- node node_modules/vitest/vitest.mjs run
fi
"$@"
