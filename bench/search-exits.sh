#!/usr/bin/env bash
# How many searches end abnormally (an abort, a crash) on the Node.js that
# runs this: indexes this repository into a temporary index, then runs N
# searches through the built CLI, alternating hybrid and lexical over a few
# queries, and prints the count with the exit codes seen. NODE_OPTIONS
# reaches the searches: --max-semi-space-size=1 collects garbage constantly,
# which made every search abort on Node.js 24 before better-sqlite3's objects
# were kept alive (src/store/embedded/sqlite.ts).
# Usage: bash bench/search-exits.sh [N]   (default 100)
#   on another line: bash scripts/on-node.sh 24 bash bench/search-exits.sh 100
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
count=${1:-100}
[[ $count =~ ^[0-9]+$ ]] || { echo "search-exits: N is a number of searches, got '$count'" >&2; exit 2; }
index=$(mktemp -d)
trap 'rm -rf "$index"' EXIT
NODE_OPTIONS='' node dist/cli/oc-vector-index.js --no-llm --db "$index" . >/dev/null 2>&1
queries=('write the index file atomically' 'where are secrets redacted' 'FaissIndex' 'parse a tree-sitter query')
abnormal=0
codes=()
for ((i = 0; i < count; i++)); do
  mode=hybrid
  ((i % 2)) && mode=lexical
  code=0
  # In a subshell whose stderr is dropped: bash reports each child a signal ended ("Aborted").
  (node dist/cli/oc-vector-search.js --db "$index" --mode "$mode" "${queries[i % ${#queries[@]}]}" >/dev/null 2>&1) 2>/dev/null || code=$?
  if ((code != 0)); then
    abnormal=$((abnormal + 1))
    codes+=("$code")
  fi
done
echo "search exits on Node.js $(node --version)${NODE_OPTIONS:+ (NODE_OPTIONS=$NODE_OPTIONS)}: $count searches, $abnormal ended abnormally${codes[*]:+ (exit codes: ${codes[*]})}"
