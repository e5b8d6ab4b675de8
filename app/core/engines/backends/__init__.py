"""Engine backends (llama.cpp, vLLM, remote): the only modules that import inference libraries."""
