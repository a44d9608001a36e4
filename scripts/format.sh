#!/usr/bin/env bash
# Formats the code in place: Biome for TypeScript and scripts (biome.json),
# clang-format for native/ (native/.clang-format) when it is installed
# (Debian: apt-get install clang-format).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Twice: a first pass can leave a few constructs that a second pass joins
# (Biome 2.6.8 re-breaks some signatures after rewrapping their types).
node_modules/.bin/biome format --write .
node_modules/.bin/biome format --write .
if command -v clang-format >/dev/null 2>&1; then
  clang-format -i native/src/*.cc native/src/*.h
else
  echo "format: clang-format is not installed: native/ left as it is" >&2
fi
