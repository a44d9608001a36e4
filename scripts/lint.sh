#!/usr/bin/env bash
# The lint step of `npm test` (and `npm run lint`): Biome's linter over the
# TypeScript and scripts (rules in biome.json; warnings fail too).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

node_modules/.bin/biome lint --error-on-warnings --no-errors-on-unmatched .
