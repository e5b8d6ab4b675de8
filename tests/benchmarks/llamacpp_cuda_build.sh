#!/usr/bin/env bash
# Build the llama.cpp vendored in llama-cpp-python's source package for NVIDIA GPUs, once, for both
# the engine and the peers: the shared libraries (libllama, libggml*, with CUDA) that llama-cpp-python's
# pure-Python package loads through LLAMA_CPP_LIB_PATH, plus llama-bench and llama-batched-bench from
# the same objects, so every contender runs the same kernels; llama-server too when SOURCE_DIR has tools/server
# (and tools/ui's CMake files: the server embeds no web UI with LLAMA_BUILD_UI=OFF).
#
#   llamacpp_cuda_build.sh SOURCE_DIR BUILD_DIR [CUDA_ARCHITECTURES]     (default 90: H100/H200)
#
# SOURCE_DIR is vendor/llama.cpp of the sdist (models/, docs/, tests/, examples/, the server's web UI and
# other GPU backends may be left out). GGML_CUDA_FA_ALL_QUANTS keeps flash attention with a quantized
# KV cache on the GPU (without it llama.cpp falls back to the CPU for those kernels). ~5-6 min at 16 jobs.
# Then: LLAMA_CPP_LIB_PATH=BUILD_DIR/bin PYTHONPATH=<dir holding the sdist's llama_cpp/> python3 ...
set -euo pipefail
source_dir=$1
build_dir=$2
arch=${3:-90}
server=OFF
if [ -f "$source_dir/tools/server/CMakeLists.txt" ]; then server=ON; fi
cmake -S "$source_dir" -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
  -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" -DGGML_CUDA_FA_ALL_QUANTS=ON \
  -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=$server -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_BUILD_APP=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF
targets=(llama llama-bench llama-batched-bench)
if [ $server = ON ]; then targets+=(llama-server); fi
# -k 0: a server that fails to build still leaves the others built
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}" -- -k 0 || echo "some target did not build"
ls "$build_dir"/bin
test -x "$build_dir/bin/llama-batched-bench" && test -x "$build_dir/bin/llama-bench"
