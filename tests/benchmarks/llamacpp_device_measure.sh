#!/usr/bin/env bash
# Every measurement of one NVIDIA lease, in order, each result written as soon as it exists (started in the
# background by `llamacpp_gpu_session.sh measure`, after `setup`; the environment comes from that script).
#  1. waits for the CUDA build;
#  2. GPU: bench_llamacpp_gpu on the 1B shape (engine vs minimal loop vs llama-bench at 1 chat; 1/4/16 chats vs
#     llama-batched-bench; TTFT; HBM roofline; q8_0 KV; `unidesk bench`) and on the 8B shape (1 and 16 chats);
#  3. CPU with the GPU hidden (CUDA_VISIBLE_DEVICES= and 0 GPU layers, 4 threads for the engine and the tools):
#     the engine benchmark against llama-server -np 4 and llama-batched-bench at 1 and 8 chats, and the first
#     request after load, on the benchmark's model and on the issue's outside shape (cpu-1024);
#  4. sampling on the GPU: a 1B-shape model with Llama-3's vocabulary: 1 chat against llama-bench with the
#     engine sampling on the host and inside llama.cpp's graph (UD_ONE_CHAT_GRAPH); 16 chats, greedy and the
#     app's default sampling, each on the host and in the graph (UD_SAMPLING_RUNS), against llama-batched-bench;
#     ("backend", only when asked) llama.cpp's backend sampling in a minimal loop;
#  5. tests/benchmarks/gpu_embedder_coexistence.py when the project has it (capped at 120 s);
#  6. ("slots", only when asked) the engine benchmark's slot_gap on the 1B shape.
# The 8B shape is measured when setup wrote it (UD_MODEL_LIST).
# UD_STEPS (default "gpu sampling cpu coexistence") picks steps; UD_CPU_THREADS (default 4); UD_GPU_REPEATS (default 3).
set -u
source "$(dirname "$0")/llamacpp_gpu_session.sh" env 2>/dev/null || true
out=$UD_OUT
mkdir -p $out
cd $UD_APP || exit 1
log() { echo "[$(date -u +%T)] $*" | tee -a $out/driver.log; }
steps=${UD_STEPS:-gpu sampling cpu coexistence}
threads=${UD_CPU_THREADS:-4}

log "waiting for the build"
for _ in $(seq 1200); do [ -f /tmp/ud-build.rc ] && break; sleep 1; done
log "build rc $(cat /tmp/ud-build.rc 2>/dev/null || echo missing); tools: $(ls $UD_BUILD/bin 2>/dev/null | grep -E 'llama-(bench|batched-bench|server)$' | tr '\n' ' ')"
# the engine benchmark's peers are looked up in UNIDESK_BENCH_CACHE/llama.cpp-<version>/build/bin
mkdir -p $UNIDESK_BENCH_CACHE/llama.cpp-0.3.36/build
ln -sfn $UD_BUILD/bin $UNIDESK_BENCH_CACHE/llama.cpp-0.3.36/build/bin

if [[ " $steps " == *" gpu "* ]]; then
  log "GPU: 1B shape"
  python3 -m tests.benchmarks.bench_llamacpp_gpu --tools $UD_BUILD/bin --out $out --tag h200-1b --kv-q8 --unidesk \
    --repeats ${UD_GPU_REPEATS:-3} \
    $UD_MODELS/llama3.2-1b-q8_0.gguf > $out/gpu_1b.txt 2> $out/gpu_1b.log
  cat $out/gpu_1b.txt >> $out/summary.txt
  [ -f $UD_MODELS/llama3.1-8b-q8_0.gguf ] && log "GPU: 8B shape" && python3 -m tests.benchmarks.bench_llamacpp_gpu --tools $UD_BUILD/bin --out $out --tag h200-8b --only overhead,parallel \
    --seqs 16 $UD_MODELS/llama3.1-8b-q8_0.gguf > $out/gpu_8b.txt 2> $out/gpu_8b.log
  cat $out/gpu_8b.txt >> $out/summary.txt 2>/dev/null
fi

if [[ " $steps " == *" slots "* ]]; then
  # two conversations decoding together after one returned to a slot that would split llama.cpp's step:
  # moved beside the running chat vs not moved, same run
  log "GPU slots: 1B shape, slot_gap"
  python3 -m tests.benchmarks.bench_llamacpp_engine --model $UD_MODELS/llama3.2-1b-q8_0.gguf --threads 4 \
    --only slot_gap --repeats 3 > $out/gpu_slot_gap.json 2> $out/gpu_slot_gap.log
  echo "GPU slot_gap: $(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print(json.dumps(r)[:600])" $out/gpu_slot_gap.json 2>&1)" >> $out/summary.txt
fi

if [[ " $steps " == *" sampling "* ]]; then
  # one chat with a real vocabulary: the engine (greedy argmax over 128,256 logits on the CPU) vs the minimal
  # loop vs llama-bench (which does not sample)
  # UD_ONE_CHAT_GRAPH (default "off on"): the engine samples on the host, then inside llama.cpp's graph
  for graph in ${UD_ONE_CHAT_GRAPH:-off on}; do
    log "GPU sampling: 1B shape, Llama-3 vocabulary, 1 chat, graph sampling $graph"
    python3 -m tests.benchmarks.bench_llamacpp_gpu --tools $UD_BUILD/bin --out $out --tag h200-1b-vocab128k-graph-$graph \
      --only overhead --repeats ${UD_GPU_REPEATS:-3} --graph-sampling $graph \
      $UD_MODELS/llama3.2-1b-vocab128k-q8_0.gguf > $out/gpu_1b_vocab128k_$graph.txt 2> $out/gpu_1b_vocab128k_$graph.log
    echo "-- graph sampling $graph" >> $out/summary.txt
    cat $out/gpu_1b_vocab128k_$graph.txt >> $out/summary.txt
  done
  if [[ " $steps " == *" backend "* ]]; then
    log "GPU sampling: backend (in-graph) greedy vs host, minimal loop, 1 and 16 chats"
    python3 -m tests.benchmarks.bench_backend_sampling --model $UD_MODELS/llama3.2-1b-vocab128k-q8_0.gguf \
      --seqs 1,16 --repeats 3 > $out/gpu_backend_sampling.json 2> $out/gpu_backend_sampling.log
    echo "GPU backend sampling: $(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print(json.dumps({k: {f: v.get(f) for f in ('backend_over_host','same_first_tokens','sampled_in_graph','error')} for k, v in r.items()}))" $out/gpu_backend_sampling.json 2>&1)" >> $out/summary.txt
  fi
  # a real vocabulary (Llama-3's 128,256 tokens) on the 1B shape: 16 chats greedy and with the app's default
  # sampling (top-k 40, top-p 0.95, min-p 0.05, temperature 0.7), against llama-batched-bench (which does not sample)
  for run in ${UD_SAMPLING_RUNS:-greedy:off greedy:on default:off default:on}; do
    sampling=${run%%:*} graph=${run##*:}
    log "GPU sampling: 1B shape, Llama-3 vocabulary, 16 chats, $sampling, graph sampling $graph"
    python3 -m tests.benchmarks.bench_llamacpp_engine --model $UD_MODELS/llama3.2-1b-vocab128k-q8_0.gguf \
      --threads 4 --only parallel,peer_batched_bench --seqs 16 --peer-seqs 16 --repeats 3 --sampling $sampling \
      --graph-sampling $graph > $out/gpu_sampling_${sampling}_$graph.json 2> $out/gpu_sampling_${sampling}_$graph.log
    python3 - $out/gpu_sampling_${sampling}_$graph.json $sampling-graph-$graph >> $out/summary.txt <<'EOF'
import json, sys
try:
    report = json.load(open(sys.argv[1]))
except Exception as error:
    print(f"GPU sampling {sys.argv[2]}: no JSON ({error})"); sys.exit()
for name, result in report["results"].items():
    keys = ("ratio", "engine_aggregate_decode_tok_s", "batched_bench_s_tg_tok_s", "reference_aggregate_decode_tok_s", "error")
    print(f"GPU sampling {sys.argv[2]} {name}: {json.dumps({k: result.get(k) for k in keys if k in result})}")
EOF
  done
fi

if [[ " $steps " == *" cpu "* ]]; then
  bench_model=$(python3 -c "from tests.benchmarks.bench_llamacpp_engine import benchmark_model; print(benchmark_model('q8_0'))")
  # model:sampling; the Qwen-vocabulary model is sampled the app's default way (greedy on random weights
  # says nothing about what a user's chat costs there), with llama-server sent the same settings
  for entry in $bench_model:greedy $UD_MODELS/cpu-1024-q8_0.gguf:greedy $UD_MODELS/cpu-1024-vocab152k-q8_0.gguf:default; do
    model=${entry%:*} sampling=${entry##*:}
    name=$(basename $model .gguf)
    log "CPU ($threads threads, GPU hidden): $name, $sampling sampling"
    CUDA_VISIBLE_DEVICES= python3 -m tests.benchmarks.bench_llamacpp_engine --model $model --threads $threads \
      --gpu-layers 0 --only overhead,parallel,warmup,peer_server,peer_batched_bench --seqs 4,8 --peer-seqs 1,8 \
      --repeats 3 --sampling $sampling > $out/cpu_$name.json 2> $out/cpu_$name.log
    python3 - $out/cpu_$name.json >> $out/summary.txt <<'EOF'
import json, sys
try:
    report = json.load(open(sys.argv[1]))
except Exception as error:
    print(f"CPU {sys.argv[1]}: no JSON ({error})"); sys.exit()
print(f"== CPU {report['model']['path']} ({report['plan']['threads']} threads)")
for name, result in report["results"].items():
    print(f"  {name}: {json.dumps({k: result.get(k) for k in ('ratio', 'target', 'passed', 'error') if k in result})}")
EOF
  done
fi

if [[ " $steps " == *" coexistence "* ]] && [ -f tests/benchmarks/gpu_embedder_coexistence.py ]; then
  log "embedder coexistence"
  timeout 120 python3 -m tests.benchmarks.gpu_embedder_coexistence --model $UD_MODELS/llama3.2-1b-q8_0.gguf \
    > $out/embedder_coexistence.json 2> $out/embedder_coexistence.log
  echo "embedder coexistence rc $?: $(head -c 600 $out/embedder_coexistence.json)" >> $out/summary.txt
fi
log "done"
touch $out/done
