#!/usr/bin/env bash
# One lease on an NVIDIA machine (no internet): build llama.cpp once, then every measurement, in the background.
#   llamacpp_gpu_session.sh setup         copy the carried sources/wheels/project snapshot to /tmp, start the CUDA
#                                         build in the background (it outlives the call), write the random models
#   llamacpp_gpu_session.sh measure       start llamacpp_device_measure.sh in the background (it waits for the
#                                         build, then measures on the GPU, then on the CPU with the GPU hidden)
#   llamacpp_gpu_session.sh wait [SECS]   wait for the build
#   llamacpp_gpu_session.sh wait-done [SECS]  wait for the measurements (returns early when they are done)
#   llamacpp_gpu_session.sh collect       pack what was measured so far into $OUT/ud-out.tgz and print the summary
#   llamacpp_gpu_session.sh env           (source it) the environment the app and benchmarks run with
# Carried: .devcarry/lcp/{llama.cpp,llama_cpp} (llama-cpp-python 0.3.36's sdist, trimmed: vendored llama.cpp
# without models/docs/tests/examples/other GPU backends, with tools/server and tools/ui's CMake files but not
# the web UI's sources; and its Python package), .devcarry/whl (gguf, diskcache, platformdirs, tomli-w wheels)
# and .devcarry/snap (`git archive HEAD` of the project: the device gets the working tree, which may hold
# other people's unfinished edits). Outputs stay under /tmp.
export UD_SITE=/tmp/ud-site UD_BUILD=/tmp/ud-build UD_MODELS=/tmp/ud-models UD_OUT=/tmp/ud-out
# UD_APP: the project tree to run: the carried snapshot when there is one, else here.
if [ -z "${UD_APP:-}" ]; then
  if [ -d .devcarry/snap/app ] || [ -d /tmp/ud-app/app ]; then export UD_APP=/tmp/ud-app; else export UD_APP=$PWD; fi
fi
export PYTHONPATH=$UD_SITE:$UD_APP LLAMA_CPP_LIB_PATH=$UD_BUILD/bin PYTHONUNBUFFERED=1
export UNIDESK_BENCH_CACHE=/tmp/ud-cache
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
step=${1:-env}
case $step in
setup)
  python3 -m pip install -q --no-index --no-deps --no-compile --target $UD_SITE .devcarry/whl/*.whl || exit 1
  rm -rf $UD_SITE/llama_cpp && cp -r .devcarry/lcp/llama_cpp $UD_SITE/
  info=$UD_SITE/llama_cpp_python-0.3.36.dist-info
  mkdir -p $info && printf 'Metadata-Version: 2.1\nName: llama-cpp-python\nVersion: 0.3.36\n' > $info/METADATA
  if [ "$UD_APP" = /tmp/ud-app ] && [ -d .devcarry/snap/app ]; then rm -rf /tmp/ud-app && cp -r .devcarry/snap /tmp/ud-app; fi
  rm -rf /tmp/ud-src && cp -r .devcarry/lcp/llama.cpp /tmp/ud-src
  cp $here/llamacpp_cuda_build.sh /tmp/ud-build.sh
  (cd /tmp && setsid nohup bash -c "bash /tmp/ud-build.sh /tmp/ud-src $UD_BUILD > /tmp/ud-build.log 2>&1; echo \$? > /tmp/ud-build.rc" < /dev/null > /dev/null 2>&1 &)
  mkdir -p $UD_MODELS
  for model in ${UD_MODEL_LIST:-llama3.2-1b:q8_0 llama3.1-8b:q8_0 llama3.2-1b-vocab128k:q8_0 cpu-1024:q8_0 cpu-1024-vocab152k:q8_0}; do
    shape=${model%%:*} dtype=${model##*:}
    (cd $UD_APP && python3 -m tests.benchmarks.llamacpp_bench_models $shape $dtype $UD_MODELS/$shape-$dtype.gguf) || exit 1
  done
  # the engine benchmark's own model (written by the test fixtures' writer), cached where the benchmark looks
  (cd $UD_APP && python3 -c "from tests.benchmarks.bench_llamacpp_engine import benchmark_model; print(benchmark_model('q8_0'))") || exit 1
  ls -la $UD_MODELS; df -h /tmp | tail -1
  ;;
measure)
  mkdir -p $UD_OUT
  cp $here/llamacpp_device_measure.sh /tmp/ud-measure.sh
  (cd /tmp && setsid nohup bash /tmp/ud-measure.sh < /dev/null > $UD_OUT/driver.out 2>&1 &)
  ;;
wait)
  for _ in $(seq ${2:-600}); do [ -f /tmp/ud-build.rc ] && break; sleep 1; done
  tail -4 /tmp/ud-build.log; echo "build rc: $(cat /tmp/ud-build.rc 2>/dev/null || echo running)"
  ;;
wait-done)
  for _ in $(seq ${2:-600}); do [ -f $UD_OUT/done ] && break; sleep 1; done
  tail -5 $UD_OUT/driver.log 2>/dev/null; [ -f $UD_OUT/done ] && echo "measurements: done" || echo "measurements: running"
  ;;
collect)
  cp /tmp/ud-build.log $UD_OUT/ 2>/dev/null
  tar -czf "${OUT:-/tmp}/ud-out.tgz" -C /tmp ud-out
  cat $UD_OUT/summary.txt 2>/dev/null
  ;;
env) ;;
esac
