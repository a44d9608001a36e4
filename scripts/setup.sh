#!/usr/bin/env bash
# One-command set-up of a clone on a Debian/Ubuntu machine, safe to run again
# (and quick when everything is there: `npm test` runs it before every test run).
#   0. Node.js as new as package.json's engines asks (else it stops, saying so);
#   1. system packages FAISS needs: libfaiss-dev, OpenBLAS built for OpenMP,
#      a C++ compiler, patchelf for the prebuilt addon; and clang-format for
#      the lint step (apt-get as root or through passwordless sudo; otherwise
#      it prints the command: FAISS's packages stop it, clang-format does not);
#   2. OpenBLAS (OpenMP) as the libblas.so.3 FAISS loads, not the reference BLAS;
#   3. npm dependencies (when package.json or package-lock.json changed);
#   4. the native addon and the TypeScript (incremental).
# Usage: bash scripts/setup.sh [--quiet]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

quiet=0
[[ "${1:-}" == "--quiet" ]] && quiet=1
say() { [[ $quiet == 1 ]] || printf 'setup: %s\n' "$*" >&2; }
fail() { printf 'setup: %s\n' "$*" >&2; exit 1; }

# Runs a step; quiet runs (before every `npm test`) show its output only when
# it fails.
run_step() {
  local name=$1
  shift
  if [[ $quiet == 1 ]]; then
    local log
    log=$(mktemp)
    if ! "$@" >"$log" 2>&1; then
      cat "$log" >&2
      rm -f "$log"
      fail "$name failed"
    fi
    rm -f "$log"
  else
    say "$name"
    "$@" || fail "$name failed"
  fi
}

# --- 0. Node.js ---------------------------------------------------------------
# Checked first, so that nothing is installed for a Node.js that cannot run it.
node_needed=$(sed -n 's/^ *"node": *">=\([0-9.]*\)".*/\1/p' package.json)
[[ -n $node_needed ]] || fail "package.json's engines.node is not of the form \">=X.Y.Z\""
command -v node >/dev/null 2>&1 || fail "Node.js is not installed: ocvector needs Node.js $node_needed or later"
command -v npm >/dev/null 2>&1 || fail "npm is not installed: it comes with Node.js ($node_needed or later)"
node_version=$(node --version)
node_version=${node_version#v}
if ! printf '%s\n%s\n' "$node_needed" "$node_version" | sort -V -C; then
  fail "Node.js $node_version is too old: ocvector needs $node_needed or later (package.json engines)"
fi

# --- 1. system packages -------------------------------------------------------
packages=(libfaiss-dev libopenblas-openmp-dev g++ make python3 patchelf)
missing=()
# Wanted, not needed: the lint step skips native/ without it.
optional=()
if command -v dpkg-query >/dev/null 2>&1; then
  for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  command -v clang-format >/dev/null 2>&1 || optional+=(clang-format)
elif [[ ! -f /usr/include/faiss/Index.h ]]; then
  fail "not a Debian/Ubuntu system: install FAISS (with headers), OpenBLAS built for OpenMP and a C++17 compiler, then run: npm ci && npm run build"
fi

wanted=("${missing[@]}" "${optional[@]}")
if ((${#wanted[@]} > 0)); then
  install=(apt-get install -y --no-install-recommends "${wanted[@]}")
  if [[ $(id -u) -eq 0 ]]; then
    say "installing ${wanted[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    "${install[@]}" >/dev/null
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    say "installing ${wanted[*]} (sudo)"
    sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    sudo env DEBIAN_FRONTEND=noninteractive "${install[@]}" >/dev/null
  elif ((${#missing[@]} > 0)); then
    fail "missing system packages: ${wanted[*]}
Run this once, then run this script again:
  sudo apt-get update && sudo ${install[*]}"
  else
    say "clang-format is not installed, so the lint step skips native/; to add it:"
    say "  sudo apt-get install -y --no-install-recommends clang-format"
  fi
fi

# --- 2. the BLAS FAISS loads --------------------------------------------------
# Debian's FAISS links libblas.so.3, which the alternatives system points at
# whichever BLAS has the highest priority: OpenBLAS's pthreads build wins over
# its OpenMP build when both are installed, and oversubscribes the cores when
# FAISS's own OpenMP threads call it. Select the OpenMP build explicitly.
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
want="/usr/lib/$arch/openblas-openmp/libblas.so.3"
if [[ -e "$want" ]] && command -v update-alternatives >/dev/null 2>&1; then
  current=$(update-alternatives --query "libblas.so.3-$arch" 2>/dev/null | sed -n 's/^Value: //p')
  if [[ -n "$current" && "$current" != "$want" ]]; then
    if [[ $(id -u) -eq 0 ]]; then
      say "selecting OpenBLAS (OpenMP) for libblas.so.3 (was $current)"
      update-alternatives --set "libblas.so.3-$arch" "$want" >/dev/null
      update-alternatives --set "liblapack.so.3-$arch" "/usr/lib/$arch/openblas-openmp/liblapack.so.3" >/dev/null 2>&1 || true
    else
      say "warning: libblas.so.3 is $current, FAISS is fastest on $want:"
      say "  sudo update-alternatives --set libblas.so.3-$arch $want"
    fi
  fi
fi

# --- 3. npm dependencies ------------------------------------------------------
# `npm install`, not `npm ci`: the lockfile pins every version, but a registry
# mirror that serves only this platform's optional packages (rollup's native
# builds for other systems) leaves them out of it, and `npm ci` then refuses a
# lockfile that `npm install` accepts unchanged.
stamp=node_modules/.ocvector-setup-stamp
fingerprint="$(node --version) $(cat package.json package-lock.json | sha256sum | cut -d' ' -f1)"
if [[ ! -f $stamp || "$(cat "$stamp")" != "$fingerprint" ]]; then
  # This also runs the package's own install script, which builds the addon.
  # --no-save: the lockfile is the project's, and a set-up never rewrites it
  # (a registry that lists more optional platform packages would otherwise
  # add them, and leave a fresh clone changed).
  run_step "installing npm dependencies" npm install --no-save --no-fund --no-audit
  printf '%s' "$fingerprint" >"$stamp"
fi

# --- 4. build -----------------------------------------------------------------
run_step "building the native addon" node scripts/build-native.mjs
run_step "compiling TypeScript" node node_modules/typescript/bin/tsc -p tsconfig.build.json
run_step "marking the CLIs executable" node scripts/mark-bins-executable.mjs
say "ready"
