#!/usr/bin/env bash
# Builds the GPU addon: FAISS with CUDA from its source tree (or a GPU FAISS
# already installed), then the addon against it, into build/gpu/Release/
# ocvector.node. The default build (binding.gyp, Debian's CPU-only FAISS) is
# left as it is; the GPU tests, the GPU benchmark and OCVECTOR_NATIVE_PATH
# load this one.
#
# Usage: bash scripts/build-gpu.sh [options]
#   --faiss-src DIR     FAISS source tree (default $OCVECTOR_FAISS_SRC, else
#                       build/faiss-src in this checkout, git-ignored, else
#                       $CACHE/faiss-src-v1.15.0, cloned there when missing)
#   --faiss-prefix DIR  use the GPU FAISS installed under DIR; no FAISS build
#                       (default $OCVECTOR_FAISS_PREFIX)
#   --cuda-arch LIST    CUDA architectures, e.g. 90 (H100) or "80;90" (default
#                       $OCVECTOR_CUDA_ARCH, else those of the GPUs here, from
#                       nvidia-smi)
#   --jobs N            parallel compile jobs (default: every core)
#   --rebuild-faiss     build FAISS again even when it is installed
#   --check-only        no build, no GPU: compile every native/src/*.cc with the
#                       GPU code (OCVECTOR_WITH_GPU) against the FAISS source
#                       tree's headers and the CUDA toolkit's, to object files
#                       that are thrown away. Proves the GPU code compiles
#                       against FAISS's GPU API on a machine without a GPU.
#   --cublas-include DIR  where cublas_v2.h is, when the CUDA toolkit lacks it
#                       (a directory of cuBLAS's and cuRAND's headers alone: FAISS's GPU
#                       headers include them; build/cublas/include
#                       is looked at too): for --check-only, and for the addon
#                       against a FAISS given by --faiss-prefix
#
# Requires: the CUDA toolkit (nvcc, cuBLAS headers and library: CUDA 12 or 13),
# CMake >= 3.24 (FAISS 1.15), g++, OpenBLAS and OpenMP (scripts/setup.sh installs
# them), npm dependencies, and for the FAISS source either --faiss-src or git
# with network access. FAISS is built once per version and CUDA architecture
# into $CACHE ($OCVECTOR_CACHE, default ~/.cache/ocvector) and reused after.
# Times: FAISS v1.15.0 with one CUDA architecture took about 5 minutes on 16
# cores (an H100 machine, CUDA 13.0), and 76 minutes on 2 shared cores (a
# development machine, nice 19, beside other work; libfaiss.so 48.6 MB for
# sm_90). The addon then takes about 15 s; --check-only about 1 minute on 2 cores.
# Where the toolkit has no cuBLAS library (only nvcc), FAISS links a stub named
# as the GPU machine's library and the headers come from --cublas-include.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

faiss_version=v1.15.0
cache=${OCVECTOR_CACHE:-$HOME/.cache/ocvector}
faiss_src=${OCVECTOR_FAISS_SRC:-}
faiss_prefix=${OCVECTOR_FAISS_PREFIX:-}
cuda_arch=${OCVECTOR_CUDA_ARCH:-}
jobs=$(nproc 2>/dev/null || echo 2)
rebuild_faiss=0
check_only=0
cublas_include=

script_tag=build-gpu
# shellcheck source=scripts/lib/messages.sh
source "$root/scripts/lib/messages.sh"

while (($# > 0)); do
  case $1 in
    --faiss-src) faiss_src=${2:?--faiss-src needs a directory}; shift ;;
    --faiss-prefix) faiss_prefix=${2:?--faiss-prefix needs a directory}; shift ;;
    --cuda-arch) cuda_arch=${2:?--cuda-arch needs a list such as 90}; shift ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift ;;
    --rebuild-faiss) rebuild_faiss=1 ;;
    --check-only) check_only=1 ;;
    --cublas-include) cublas_include=${2:?--cublas-include needs a directory}; shift ;;
    -h | --help)
      print_help "${BASH_SOURCE[0]}"
      exit 0
      ;;
    *) fail "unknown option $1 (--help lists them)" ;;
  esac
  shift
done

# --- the CUDA toolkit -----------------------------------------------------------
# The toolkit's own directory ($CUDA_HOME, /usr/local/cuda, or where nvcc is;
# a nvcc on PATH may be a wrapper script elsewhere).
cuda_root=${CUDA_HOME:-${CUDA_PATH:-}}
[[ -z $cuda_root && -x /usr/local/cuda/bin/nvcc ]] && cuda_root=/usr/local/cuda
if [[ -z $cuda_root ]] && command -v nvcc >/dev/null; then
  cuda_root=$(cd "$(dirname "$(readlink -f "$(command -v nvcc)")")/.." && pwd)
fi
nvcc=$cuda_root/bin/nvcc
[[ -n $cuda_root && -x $nvcc ]] || fail "no CUDA toolkit (nvcc): install it (12 or 13), or set CUDA_HOME to its directory"
cuda_root=$(readlink -f "$cuda_root")
cuda_include=$cuda_root/include
[[ -d $cuda_root/targets/x86_64-linux/include ]] && cuda_include=$cuda_root/targets/x86_64-linux/include
say "CUDA: $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') at $cuda_root"

find_cublas_header() {
  local dir
  for dir in "$cublas_include" "$cuda_include" "$cuda_root/include" /usr/include "$root/build/cublas/include"; do
    [[ -n $dir && -f $dir/cublas_v2.h ]] && { printf '%s' "$dir"; return 0; }
  done
  return 1
}

# --- the FAISS source tree ------------------------------------------------------
faiss_source() {
  if [[ -z $faiss_src ]]; then
    faiss_src=$cache/faiss-src-$faiss_version
    [[ -f $root/build/faiss-src/faiss/Index.h ]] && faiss_src=$root/build/faiss-src
  fi
  if [[ ! -f $faiss_src/faiss/gpu/StandardGpuResources.h ]]; then
    [[ -e $faiss_src ]] && fail "$faiss_src is not a FAISS source tree (no faiss/gpu/StandardGpuResources.h)"
    command -v git >/dev/null || fail "no FAISS source at $faiss_src and no git to clone it: pass --faiss-src DIR"
    say "cloning FAISS $faiss_version into $faiss_src"
    mkdir -p "$(dirname "$faiss_src")"
    git clone --quiet --depth 1 --branch "$faiss_version" https://github.com/facebookresearch/faiss.git "$faiss_src" ||
      fail "could not clone FAISS (no network?): fetch its source elsewhere and pass --faiss-src DIR"
  fi
  local header=$faiss_src/faiss/Index.h version
  version=$(sed -n 's/^#define FAISS_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' "$header" | paste -sd.)
  say "FAISS source: $version at $faiss_src"
}

node_api_include() {
  node -p "require('node-api-headers').include_dir" 2>/dev/null ||
    fail "no node-api-headers package: run npm ci first"
}

# --- --check-only: compile the GPU code against FAISS's GPU headers -------------
if ((check_only)); then
  faiss_source
  cublas=$(find_cublas_header) ||
    fail "no cublas_v2.h (FAISS's GPU headers include it) in $cuda_include: install cuBLAS's headers (libcublas-dev) or pass --cublas-include DIR"
  [[ $cublas == "$cuda_include" ]] || say "cuBLAS headers: $cublas"
  objects=$(mktemp -d)
  trap 'rm -rf "$objects"' EXIT
  flags=(-std=c++17 -c -O0 -fopenmp -Wall -Wextra -Wno-unused-parameter -Werror
    -DOCVECTOR_WITH_GPU -DNAPI_VERSION=8 -DNAPI_CPP_EXCEPTIONS -DNODE_ADDON_API_DISABLE_DEPRECATED
    -isystem "$faiss_src" -isystem "$cuda_include" -idirafter "$cublas"
    -I"$(node_api_include)" -I"$(node -p "require('node-addon-api').include_dir")")
  say "compiling native/src/*.cc with OCVECTOR_WITH_GPU against FAISS's GPU headers ($jobs at a time)"
  started=$SECONDS
  # shellcheck disable=SC2016
  printf '%s\n' native/src/*.cc | xargs -P "$jobs" -I{} sh -c \
    'g++ "$@" -o "'"$objects"'/$(basename {} .cc).o" {} || { echo "build-gpu: FAILED {}" >&2; exit 255; }' \
    sh "${flags[@]}"
  say "ok: $(find "$objects" -name '*.o' | wc -l) translation units compiled with the GPU code in $((SECONDS - started)) s (no GPU, nothing linked)"
  say "FAISS GPU symbols the addon links to (all declared by the headers above):"
  nm -C --undefined-only "$objects"/*.o | sed -n 's/^ *U //p' | grep -E '^(faiss::gpu|typeinfo for faiss::gpu|cuda)' | sort -u |
    sed 's/^/build-gpu:   /' >&2
  exit 0
fi

# --- CUDA architectures -----------------------------------------------------------
if [[ -z $cuda_arch ]]; then
  command -v nvidia-smi >/dev/null ||
    fail "no nvidia-smi to read the GPUs' architecture from: pass --cuda-arch (90 for H100/H200, 80 for A100, 89 for L4/L40)"
  cuda_arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | tr -d '. ' | sort -u | paste -sd';')
  [[ -n $cuda_arch ]] || fail "nvidia-smi lists no GPU: pass --cuda-arch to build for another machine"
fi
say "CUDA architectures: $cuda_arch"

# --- FAISS with GPU support ------------------------------------------------------
if [[ -z $faiss_prefix ]]; then
  cublas=$(find_cublas_header) ||
    fail "no cuBLAS in the CUDA toolkit at $cuda_root (FAISS's GPU code needs it): install its development package (libcublas-dev-<version>, or cuda-libraries-dev-<version>)"
  command -v cmake >/dev/null || fail "no cmake (FAISS needs 3.24 or later): apt-get install cmake"
  tag=$faiss_version-sm${cuda_arch//;/-}
  faiss_prefix=$cache/faiss-gpu-$tag
  if ((rebuild_faiss)) || [[ ! -f $faiss_prefix/.ocvector-built ]]; then
    faiss_source
    build_dir=$cache/faiss-build-$tag
    say "building FAISS with CUDA into $faiss_prefix ($jobs jobs; about 5 min on 16 cores, hours on 2)"
    started=$SECONDS
    # A toolkit without cuBLAS's library (a machine that only builds, for a GPU machine
    # elsewhere): FAISS links a stub named as the library it will find there, with the headers
    # --cublas-include gives (curand's too, which its ICM encoder's kernels include).
    stub=()
    if ! compgen -G "$cuda_root/lib64/libcublas.so*" >/dev/null && ! compgen -G "$cuda_root/targets/x86_64-linux/lib/libcublas.so*" >/dev/null; then
      [[ $cublas != "$cuda_include" ]] || fail "no cuBLAS library in $cuda_root: install it, or give its headers elsewhere (--cublas-include) to link a stub"
      cuda_major=$("$nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
      mkdir -p "$cache/cublas-stub"
      printf 'void ocvector_cublas_stub(void) {}\n' >"$cache/cublas-stub/stub.c"
      gcc -shared -fPIC -Wl,-soname,"libcublas.so.$cuda_major" -o "$cache/cublas-stub/libcublas.so" "$cache/cublas-stub/stub.c"
      stub=(-DCUDA_cublas_LIBRARY="$cache/cublas-stub/libcublas.so" -DCMAKE_CUDA_FLAGS="-isystem $cublas"
        -DCMAKE_CXX_FLAGS="-idirafter $cublas")
      say "no cuBLAS library here: linking a stub for libcublas.so.$cuda_major (the GPU machine's is loaded there)"
    fi
    cmake -S "$faiss_src" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
      -DFAISS_ENABLE_GPU=ON -DFAISS_ENABLE_PYTHON=OFF -DBUILD_TESTING=OFF -DFAISS_ENABLE_CUVS=OFF \
      -DCMAKE_CUDA_ARCHITECTURES="$cuda_arch" -DBUILD_SHARED_LIBS=ON -DFAISS_ENABLE_EXTRAS=OFF \
      -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_INSTALL_PREFIX="$faiss_prefix" "${stub[@]}" >/dev/null
    cmake --build "$build_dir" -j "$jobs"
    cmake --install "$build_dir" >/dev/null
    # The stub exports nothing, so the linker left it out: name the real library as needed.
    if ((${#stub[@]} > 0)); then
      command -v patchelf >/dev/null || fail "patchelf is needed to record libcublas in libfaiss.so: apt-get install patchelf"
      patchelf --add-needed "libcublas.so.$cuda_major" "$faiss_prefix/lib/libfaiss.so"
    fi
    touch "$faiss_prefix/.ocvector-built"
    say "FAISS built and installed in $((SECONDS - started)) s"
  else
    say "FAISS with CUDA already built: $faiss_prefix (--rebuild-faiss builds it again)"
  fi
fi
[[ -f $faiss_prefix/include/faiss/gpu/StandardGpuResources.h ]] ||
  fail "$faiss_prefix holds no GPU FAISS (no include/faiss/gpu/StandardGpuResources.h)"
# CMake reads a relative prefix against its build directory: make it absolute.
faiss_prefix=$(cd "$faiss_prefix" && pwd)

# --- the addon ----------------------------------------------------------------------
# Plain CMake with node-api-headers: cmake-js would download Node's headers.
out=$root/build/gpu
say "building the addon against it into $out/Release"
started=$SECONDS
# FAISS's GPU headers include cublas_v2.h: from the toolkit, or where --cublas-include says.
extra_flags=()
if cublas=$(find_cublas_header) && [[ $cublas != "$cuda_include" ]]; then
  say "cuBLAS headers: $cublas"
  extra_flags+=("-DCMAKE_CXX_FLAGS=-idirafter $cublas")
fi
cmake -S native -B "$out" -DCMAKE_BUILD_TYPE=Release -DOCVECTOR_GPU=ON "${extra_flags[@]}" \
  -DCMAKE_PREFIX_PATH="$faiss_prefix" -DCUDAToolkit_ROOT="$cuda_root" \
  -DCMAKE_JS_INC="$(node_api_include)" -DCMAKE_LIBRARY_OUTPUT_DIRECTORY="$out/Release" \
  -DCMAKE_BUILD_RPATH="$faiss_prefix/lib;$faiss_prefix/lib64" >/dev/null
cmake --build "$out" -j "$jobs" >/dev/null
addon=$out/Release/ocvector.node
say "addon built in $((SECONDS - started)) s: $addon"
node -e "const a = require(process.argv[1]); const g = a.gpuInfo();
  console.error('build-gpu: FAISS ' + a.faissVersion + ', GPU support compiled: ' + g.compiled + ', CUDA devices: ' + g.devices + (g.reason ? ' (' + g.reason + ')' : ''));
  if (!g.compiled) process.exit(1);" "$addon"
say "use it: OCVECTOR_NATIVE_PATH=$addon (CLIs), setNativeAddonPath() (library); npm run test:gpu runs the GPU tests"
