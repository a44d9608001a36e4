#!/usr/bin/env bash
# The lint step of `npm test` (and `npm run lint`): Biome's linter and
# formatter check over the TypeScript and scripts (biome.json; warnings fail
# too), and clang-format's check over native/ (native/.clang-format) when
# clang-format is installed. `npm run format` fixes what the formatters report.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

node_modules/.bin/biome check --error-on-warnings --no-errors-on-unmatched .
if command -v clang-format >/dev/null 2>&1; then
  clang-format --dry-run --Werror native/src/*.cc native/src/*.h
else
  echo "lint: clang-format is not installed: native/ not checked (apt-get install clang-format)" >&2
fi
