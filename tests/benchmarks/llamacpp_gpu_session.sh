#!/usr/bin/env bash
# One lease on an NVIDIA machine (no internet): build llama.cpp once, then crash probe and measurements.
#   llamacpp_gpu_session.sh setup         copy the carried sources/wheels to /tmp, start the CUDA build in
#                                         the background (it outlives the call), write the random models
#   llamacpp_gpu_session.sh wait [SECS]   wait for the build
#   llamacpp_gpu_session.sh env           (source it) the environment the app and benchmarks run with
# Carried: .devcarry/lcp/{llama.cpp,llama_cpp} (llama-cpp-python 0.3.36's sdist, trimmed: vendored
# llama.cpp without models/docs/tests/examples/web UI/other GPU backends, and its Python package) and
# .devcarry/whl (gguf, diskcache, platformdirs, tomli-w wheels). Outputs stay under /tmp.
export UD_SITE=/tmp/ud-site UD_BUILD=/tmp/ud-build UD_MODELS=/tmp/ud-models
# UD_APP: the project tree to run (default: here); a copy under /tmp keeps later calls' re-sent tree out of it.
export UD_APP=${UD_APP:-$PWD}
export PYTHONPATH=$UD_SITE:$UD_APP LLAMA_CPP_LIB_PATH=$UD_BUILD/bin PYTHONUNBUFFERED=1
step=${1:-env}
case $step in
setup)
  python3 -m pip install -q --no-index --no-deps --no-compile --target $UD_SITE .devcarry/whl/*.whl || exit 1
  rm -rf $UD_SITE/llama_cpp && cp -r .devcarry/lcp/llama_cpp $UD_SITE/
  info=$UD_SITE/llama_cpp_python-0.3.36.dist-info
  mkdir -p $info && printf 'Metadata-Version: 2.1\nName: llama-cpp-python\nVersion: 0.3.36\n' > $info/METADATA
  rm -rf /tmp/ud-src && cp -r .devcarry/lcp/llama.cpp /tmp/ud-src
  cp $UD_APP/tests/benchmarks/llamacpp_cuda_build.sh /tmp/ud-build.sh
  (cd /tmp && setsid nohup bash -c "bash /tmp/ud-build.sh /tmp/ud-src $UD_BUILD > /tmp/ud-build.log 2>&1; echo \$? > /tmp/ud-build.rc" < /dev/null > /dev/null 2>&1 &)
  mkdir -p $UD_MODELS
  for shape in ${UD_SHAPES:-llama3.2-1b llama3.1-8b}; do for dtype in q8_0 f16; do
    (cd $UD_APP && python3 -m tests.benchmarks.llamacpp_bench_models $shape $dtype $UD_MODELS/$shape-$dtype.gguf) || exit 1
  done; done
  ls -la $UD_MODELS; df -h /tmp | tail -1
  ;;
wait)
  for _ in $(seq ${2:-600}); do [ -f /tmp/ud-build.rc ] && break; sleep 1; done
  tail -4 /tmp/ud-build.log; echo "build rc: $(cat /tmp/ud-build.rc 2>/dev/null || echo running)"
  ;;
env) ;;
esac
