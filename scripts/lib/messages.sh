# shellcheck shell=bash
# Sourced by the scripts in scripts/: their messages, failures and --help, alike.
# Set before sourcing: script_tag (the prefix of every message) and, where a
# failure must not exit 1, fail_status.

# shellcheck disable=SC2154 # script_tag: set by the script that sources this
say() { printf '%s: %s\n' "$script_tag" "$*" >&2; }

fail() {
  say "$*"
  exit "${fail_status:-1}"
}

# --help: the script's header comment, from its second line to `set -euo`.
print_help() { sed -n '2,/^set -euo/p' "$1" | sed '$d; s/^# \{0,1\}//'; }
