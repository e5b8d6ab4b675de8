"""Which layers use sliding-window attention: llama.cpp's and HF's per-architecture patterns."""

from __future__ import annotations

# llama.cpp architecture name -> (n_pattern, dense_first) as set in its model loaders
# (src/models/*.cpp ``load_swa_pattern``): gemma2 alternates local/global, gemma3 has five
# local layers per global one, cohere2 three per one, and so on.
GGUF_SWA_PATTERNS: dict[str, tuple[int, bool]] = {
    "gemma2": (2, False),
    "gemma3": (6, False),
    "cohere2": (4, False),
    "cohere2moe": (4, True),
    "gpt-oss": (2, False),
    "exaone4": (4, False),
    "olmo2": (4, False),
    "afmoe": (4, False),
    "smallthinker": (4, True),
    "mellum": (4, False),
}
# llama.cpp defaults when the GGUF has no sliding_window key.
GGUF_DEFAULT_WINDOWS: dict[str, int] = {"gemma2": 4096, "exaone4": 4096}

# HF model_type -> sliding_window_pattern when the config has no ``layer_types`` list.
HF_SWA_PATTERNS: dict[str, int] = {"gemma2": 2, "gemma3": 6, "gemma3_text": 6, "cohere2": 4}


def swa_layers_from_pattern(n_layers: int, n_pattern: int, dense_first: bool = False) -> tuple[bool, ...]:
    """Per-layer sliding flags, as llama.cpp's ``set_swa_pattern``: every ``n_pattern``-th layer
    is global (the last of each group, or the first when ``dense_first``); ``n_pattern`` 0 makes
    all layers sliding, 1 makes none sliding.
    """
    if n_pattern <= 0:
        return (True,) * n_layers
    if dense_first:
        return tuple(layer % n_pattern != 0 for layer in range(n_layers))
    return tuple(layer % n_pattern < n_pattern - 1 for layer in range(n_layers))
