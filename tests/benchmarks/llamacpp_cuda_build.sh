#!/usr/bin/env bash
# Build the llama.cpp vendored in llama-cpp-python's source package for NVIDIA GPUs, once, for both
# the engine and the peers: the shared libraries (libllama, libggml*, with CUDA) that llama-cpp-python's
# pure-Python package loads through LLAMA_CPP_LIB_PATH, plus llama-bench and llama-batched-bench from
# the same objects, so every contender runs the same kernels.
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
cmake -S "$source_dir" -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
  -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" -DGGML_CUDA_FA_ALL_QUANTS=ON \
  -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_BUILD_APP=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF
cmake --build "$build_dir" -j "$(nproc)" --target llama llama-bench llama-batched-bench
ls "$build_dir"/bin
