#!/usr/bin/env bash
# Runs the GPU tests, then the GPU benchmark, on a lent GPU machine that has no
# Node.js, no network and perhaps no BLAS, from what scripts/gpu-carry.sh
# packed into .device/ and the working tree carried with it:
#   1. unpacks Node.js and the libraries into /tmp/ocvector-carried/, the GPU
#      build (libfaiss.so, ocvector.node) into /tmp/ocvector-carried/gpu/,
#      node_modules and dist/ into the checkout (dist/ is compiled again with
#      the carried esbuild where src/ differs from the src/ it was made from);
#   2. finds the CUDA libraries FAISS links (libcublas.so.13, libcudart.so.13)
#      in the CUDA toolkit, the system or Python's nvidia packages, and sets
#      PATH and LD_LIBRARY_PATH;
#   3. prints the environment: the GPU, Node.js, what libfaiss.so and the addon
#      link to (and what they cannot find), gpuInfo();
#   4. the GPU tests (vitest, test/native/gpu/vitest.config.ts), then
#      bench:native --gpu, the second even when the first failed, each with
#      OCVECTOR_NATIVE_PATH at the carried addon and within the time left.
# Usage, from the repository root on the GPU machine:
#   bash scripts/gpu-run-carried.sh [--quick] [--tests-only | --bench-only] [--deadline S]
# When Node.js does not travel with .device (gpu-carry.sh --split), the
# machine's own is used if it is of the line node_modules was built for
# (.device/node-line); where it has none, the call keeps
# what it carried in /tmp/ocvector-carried and the checkout and exits 3, and a
# second call to the same machine (warm: within its 30 s), carrying
# .device-node, runs it all.
#   --quick         bench:native --gpu --quick (100,000 vectors, not 1,000,000)
#   --tests-only    the GPU tests alone; --bench-only: the benchmark alone
#   --deadline S    finish within S seconds of starting (default 570): each
#                   step is stopped when the time is up, the benchmark gets
#                   whatever the tests leave
# Output: everything printed goes to $OUT/gpu-log.txt too when OUT is set, and
# the benchmark's figures (bench/out/*.json) and, after a full run, the
# docs/performance.md it updates are copied to $OUT. Exit status: 0 when the
# tests and the benchmark passed, 1 when either failed, 2 when nothing could run,
# 3 when the machine has no Node.js and none was carried (a second call is needed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
dev=$root/.device
carried=/tmp/ocvector-carried

quick=0
tests=1
bench=1
deadline=570

script_tag=gpu-run
fail_status=2 # 2: nothing could run
# shellcheck source=scripts/lib/messages.sh
source "$root/scripts/lib/messages.sh"

while (($# > 0)); do
  case $1 in
    --quick) quick=1 ;;
    --tests-only) bench=0 ;;
    --bench-only) tests=0 ;;
    --deadline) deadline=${2:?--deadline needs seconds}; shift ;;
    -h | --help)
      print_help "${BASH_SOURCE[0]}"
      exit 0
      ;;
    *) fail "unknown option $1 (--help lists them)" ;;
  esac
  shift
done

step() { say "== $(date -u +%T) (+$SECONDS s) $*"; }

# tar -J needs the xz program, which a minimal image may lack: Python's tarfile then.
unpack() { # unpack ARCHIVE DIR
  if command -v xz >/dev/null 2>&1; then
    tar -xJf "$1" -C "$2"
  else
    python3 - "$1" "$2" <<'EOF'
import sys, tarfile
with tarfile.open(sys.argv[1]) as archive:
    archive.extractall(sys.argv[2], **({'filter': 'fully_trusted'} if hasattr(tarfile, 'fully_trusted_filter') else {}))
EOF
  fi
}

# The first directory of those given that holds FILE (or none).
find_in() {
  local file=$1 dir
  shift
  for dir in "$@"; do
    [[ -f $dir/$file ]] && { printf '%s' "$dir"; return 0; }
  done
  return 1
}

# Where pip's CUDA packages may be: every Python's site-packages.
python_sites() {
  local python
  for python in python3 /opt/*/.venv/bin/python3 /usr/local/bin/python3 /usr/bin/python3; do
    command -v "$python" >/dev/null 2>&1 || continue
    "$python" -c 'import site, sys; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null || true
  done
  compgen -G '/opt/*/.venv/lib/python3*/site-packages' || true
  compgen -G '/usr/local/lib/python3*/dist-packages' || true
  compgen -G '/usr/lib/python3/dist-packages' || true
}

run() {
  local started=$SECONDS
  step "unpacking .device/ (carried by scripts/gpu-carry.sh)"
  # What this call carried is unpacked; what an earlier call to this machine kept is used.
  local archive spec
  for spec in node_modules:$root dist:$root libs:$carried/libs gpu-build:$carried/gpu; do
    archive=${spec%%:*}
    [[ -f $dev/$archive.tar.xz ]] || continue
    if [[ ${spec#*:} == "$carried"/* ]]; then rm -rf "${spec#*:}"; fi
    mkdir -p "${spec#*:}" || fail "cannot make ${spec#*:}"
    unpack "$dev/$archive.tar.xz" "${spec#*:}" || fail "could not unpack .device/$archive.tar.xz (above)"
  done
  [[ -d node_modules/vitest && -f dist/index.js ]] || fail "no node_modules and dist/: carry .device (bash scripts/gpu-carry.sh)"
  [[ -d $carried/libs ]] || fail "no libraries: carry .device (bash scripts/gpu-carry.sh)"
  [[ -f $carried/gpu/libfaiss.so && -f $carried/gpu/ocvector.node ]] ||
    fail "no GPU build: carry .device with gpu-build.tar.xz (bash scripts/build-gpu.sh, then gpu-carry.sh)"
  # Node.js: carried now, kept by an earlier call, or the machine's own if it is the line the
  # carried node_modules were built for (better-sqlite3's binary is for one ABI).
  local line
  line=$(sed -n 's/^node v\([0-9]*\).*/\1/p' "$dev/node-line" 2>/dev/null || true)
  line=${line:-20}
  for archive in "$dev/node.tar.xz" "$root/.device-node/node.tar.xz"; do
    if [[ -f $archive ]]; then
      rm -rf "$carried/node"
      unpack "$archive" "$carried" || fail "could not unpack $archive (above)"
    fi
  done
  if [[ -x $carried/node/bin/node ]]; then
    export PATH=$carried/node/bin:$PATH
  elif ! command -v node >/dev/null 2>&1 || [[ $(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) != "$line" ]]; then
    say "no Node.js $line here ($(command -v node || echo 'none') $(node -v 2>/dev/null || true)): the rest is kept in $carried and the checkout"
    step "call again within the machine's 30 s, carrying .device-node, with the same command"
    exit 3
  fi
  say "unpacked in $((SECONDS - started)) s: $(du -sh "$carried" | cut -f1) in $carried, node_modules $(du -sh node_modules | cut -f1); node $(command -v node)"

  # dist/ runs in the analysis worker threads: it must be this src/.
  local digest
  digest=$(find src -type f -name '*.ts' | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
  if [[ $digest != "$(cat dist/.src-digest 2>/dev/null)" ]]; then
    say "src/ changed since dist/ was packed: compiling it again with the carried esbuild"
    # shellcheck disable=SC2046 # the file names have no spaces
    node_modules/@esbuild/linux-x64/bin/esbuild $(find src -type f -name '*.ts' ! -name '*.d.ts') --outdir=dist \
      --outbase=src --format=esm --platform=node --target=node20 --log-level=warning ||
      fail "esbuild could not compile src/"
  fi

  step "libraries"
  # libgomp: the system's where there is one (newer), else the carried one.
  if ldconfig -p 2>/dev/null | grep -q 'libgomp\.so\.1 '; then rm -f "$carried/libs/libgomp.so.1"; fi
  say "carried: $(cd "$carried/libs" && echo *)"
  local -a dirs=()
  local dir site
  for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-*/lib64 \
    /usr/local/cuda-*/targets/x86_64-linux/lib; do [[ -d $dir ]] && dirs+=("$dir"); done
  dirs+=(/usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu)
  while IFS= read -r site; do
    for dir in "$site"/nvidia/cu13/lib "$site"/nvidia/cublas/lib "$site"/nvidia/cuda_runtime/lib; do
      [[ -d $dir ]] && dirs+=("$dir")
    done
  done < <(python_sites | sort -u)
  local path=$carried/gpu:$carried/libs name found
  for name in libcublas.so.13 libcublasLt.so.13 libcudart.so.13; do
    if found=$(find_in "$name" "${dirs[@]}"); then
      say "$name: $found"
      case :$path: in *:"$found":*) ;; *) path=$path:$found ;; esac
    else
      say "$name: NOT FOUND in ${dirs[*]}"
    fi
  done
  if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    if found=$(find_in libcuda.so.1 /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib64 /usr/local/cuda/compat); then
      say "libcuda.so.1 (the driver): $found"
      path=$path:$found
    else
      say "libcuda.so.1 (the driver): not in ldconfig's cache nor in /usr/local/nvidia"
    fi
  fi
  export LD_LIBRARY_PATH=$path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # The carried OpenBLAS (0.3.21) may not know this CPU and fall back to its oldest kernels
  # (Prescott): the CPU side of the comparison would be slower than it is. Name the kernels
  # the CPU can run, unless told.
  if [[ -z ${OPENBLAS_CORETYPE:-} ]]; then
    if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SKYLAKEX
    elif grep -qw avx2 /proc/cpuinfo; then export OPENBLAS_CORETYPE=HASWELL; fi
  fi
  say "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset, OpenBLAS chooses}"
  export OCVECTOR_NATIVE_PATH=$carried/gpu/ocvector.node
  say "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  say "OCVECTOR_NATIVE_PATH=$OCVECTOR_NATIVE_PATH"

  step "environment"
  say "$(uname -srm); $(nproc) cores; $(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); $(sed -n 's/^PRETTY_NAME=//p' /etc/os-release 2>/dev/null | tr -d '"'); $(ldd --version 2>&1 | head -1)"
  nvidia-smi -L 2>&1 || say "nvidia-smi failed"
  nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv,noheader 2>&1 || true
  say "node $(node -v) at $(command -v node); git: $(command -v git || echo 'none (the Indexer asks git about repositories)')"
  local lib
  for lib in "$carried/gpu/libfaiss.so" "$OCVECTOR_NATIVE_PATH"; do
    say "ldd ${lib##*/}:"
    ldd "$lib" 2>&1 | grep -E 'not found|faiss|blas|lapack|gfortran|quadmath|gomp|cublas|cudart|cuda\.so|stdc\+\+' | sed 's/ (0x[0-9a-f]*)//; s/^/    /' >&2 || true
  done
  if ldd "$carried/gpu/libfaiss.so" "$OCVECTOR_NATIVE_PATH" 2>&1 | grep -q 'not found'; then
    say "WARNING: libraries not found (above): loading the addon will fail"
  fi
  node -e '
    const a = require(process.argv[1]);
    console.error("gpu-run: FAISS " + a.faissVersion + "; gpuInfo " + JSON.stringify(a.gpuInfo()) + "; BLAS " + JSON.stringify(a.blasInfo()));
  ' "$OCVECTOR_NATIVE_PATH" || say "WARNING: the GPU addon does not load (above)"

  local end=$((deadline)) test_rc=skipped bench_rc=skipped left
  if ((tests)); then
    left=$((end - SECONDS - (bench ? (quick ? 90 : 240) : 0)))
    ((left > 60)) || left=60
    step "GPU tests (at most $left s): vitest run --config test/native/gpu/vitest.config.ts"
    test_rc=0
    timeout -k 10 "$left" node node_modules/vitest/vitest.mjs run --config test/native/gpu/vitest.config.ts || test_rc=$?
    step "GPU tests: exit $test_rc$( ((test_rc == 124)) && echo ' (stopped: out of time)')"
  fi
  if ((bench)); then
    left=$((end - SECONDS - 5))
    ((left > 30)) || left=30
    local -a args=(--gpu)
    ((quick)) && args+=(--quick)
    step "bench:native ${args[*]} (at most $left s)"
    bench_rc=0
    timeout -k 10 "$left" node --expose-gc node_modules/vite-node/vite-node.mjs bench/native.ts -- "${args[@]}" || bench_rc=$?
    step "bench:native ${args[*]}: exit $bench_rc$( ((bench_rc == 124)) && echo ' (stopped: out of time)')"
  fi

  if [[ -n ${OUT:-} ]]; then
    local copied=0 figures
    for figures in bench/out/*.json; do
      [[ -f $figures ]] && ((copied < 5)) && cp "$figures" "$OUT/" && copied=$((copied + 1))
    done
    if ((bench && !quick)) && [[ $bench_rc == 0 ]]; then cp docs/performance.md "$OUT/performance.md"; fi
    say "copied to \$OUT: $(cd "$OUT" && echo *)"
  fi
  step "done: GPU tests $test_rc, bench $bench_rc"
  [[ $test_rc == 0 || $test_rc == skipped ]] && [[ $bench_rc == 0 || $bench_rc == skipped ]]
}

# run's own failures are handled where they happen (errexit does not hold in a
# function called before ||): it returns 0, 1 (a step failed) or exits 2.
status=0
if [[ -n ${OUT:-} ]]; then
  mkdir -p "$OUT"
  run 2>&1 | tee "$OUT/gpu-log.txt" || status=$? # pipefail: run's status
else
  run || status=$?
fi
exit "$status"
