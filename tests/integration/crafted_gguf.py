"""Llama GGUF files crafted for exact-output tests with the real llama.cpp.

* Scripted: every token has one fixed greedy successor. All attention and feed-forward
  weights are zero, so the residual stream carries the input token's embedding (a unit
  vector ``e_i``) straight to the output head, which maps ``e_i`` to the successor. Good for
  multi-byte UTF-8 split across byte tokens, stop strings and end-of-generation.
* Peaked: random weights whose output head is scaled up, so the greedy choice wins by a wide
  margin. Float rounding that depends on how llama.cpp groups tokens into micro-batches
  cannot flip it, unlike the near-uniform logits of the standard tiny models.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.fixtures.models import CHATML_TEMPLATE, SpmVocabulary, build_spm_vocabulary

N_EMBD = 64
N_LAYERS = 1
N_HEADS = 2
N_FF = 64
VOCAB_SIZE = 1280
LOGIT_SCALE = 4.0
PEAKED_ATTENTION_STD = 0.25
PEAKED_FFN_STD = 0.1
PEAKED_OUTPUT_STD = 1.0


def scripted_vocabulary(turn_tokens: tuple[str, str] | None = None) -> SpmVocabulary:
    """The crafted models' vocabulary; ``turn_tokens`` replace ChatML's turn tokens (another model family's)."""
    return build_spm_vocabulary(VOCAB_SIZE) if turn_tokens is None else build_spm_vocabulary(VOCAB_SIZE, turn_tokens)


def byte_token(vocabulary: SpmVocabulary, value: int) -> int:
    """Id of the byte-fallback token ``<0xNN>``."""
    return vocabulary.tokens.index(f"<0x{value:02X}>")


def piece_token(vocabulary: SpmVocabulary, piece: str) -> int:
    """Id of a word piece such as ``"▁hello"``."""
    return vocabulary.tokens.index(piece)


def _write_llama(
    path: Path, tensors: dict[str, Any], n_heads: int, n_kv_heads: int, name: str,
    vocabulary: SpmVocabulary | None = None, chat_template: str | None = CHATML_TEMPLATE,
) -> Path:
    """Write llama metadata (the scripted vocabulary unless given; ``chat_template`` None writes none)
    and ``tensors`` (numpy, numpy shape order).
    """
    import gguf

    vocabulary = vocabulary or scripted_vocabulary()
    n_embd = tensors["token_embd.weight"].shape[1]
    n_layers = sum(1 for tensor_name in tensors if tensor_name.endswith("attn_q.weight"))
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(path, gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.LLAMA])
    writer.add_name(name)
    writer.add_file_type(int(gguf.LlamaFileType.ALL_F32))
    writer.add_context_length(4096)
    writer.add_embedding_length(n_embd)
    writer.add_block_count(n_layers)
    writer.add_feed_forward_length(tensors["blk.0.ffn_up.weight"].shape[0])
    writer.add_head_count(n_heads)
    writer.add_head_count_kv(n_kv_heads)
    writer.add_rope_dimension_count(n_embd // n_heads)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(VOCAB_SIZE)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(list(vocabulary.tokens))
    writer.add_token_scores(list(vocabulary.scores))
    writer.add_token_types(list(vocabulary.token_types))
    writer.add_unk_token_id(vocabulary.unk_id)
    writer.add_bos_token_id(vocabulary.bos_id)
    writer.add_eos_token_id(vocabulary.eos_id)
    writer.add_eot_token_id(vocabulary.turn_end_id)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    if chat_template is not None:
        writer.add_chat_template(chat_template)
    for tensor_name, values in tensors.items():
        writer.add_tensor(tensor_name, values)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def _layer_shapes(n_embd: int, n_kv_width: int, n_ff: int) -> dict[str, tuple[int, int]]:
    return {
        "attn_q.weight": (n_embd, n_embd),
        "attn_k.weight": (n_kv_width, n_embd),
        "attn_v.weight": (n_kv_width, n_embd),
        "attn_output.weight": (n_embd, n_embd),
        "ffn_gate.weight": (n_ff, n_embd),
        "ffn_up.weight": (n_ff, n_embd),
        "ffn_down.weight": (n_embd, n_ff),
    }


def write_scripted_gguf(
    path: Path, successors: Mapping[int, int],
    vocabulary: SpmVocabulary | None = None, chat_template: str | None = CHATML_TEMPLATE,
) -> Path:
    """Write a model whose greedy choice after token ``t`` is ``successors[t]`` (see :func:`_write_llama`)."""
    import numpy as np

    if len(successors) > N_EMBD:
        raise ValueError(f"at most {N_EMBD} scripted tokens")
    tensors: dict[str, Any] = {"token_embd.weight": np.zeros((VOCAB_SIZE, N_EMBD), dtype=np.float32)}
    output = np.zeros((VOCAB_SIZE, N_EMBD), dtype=np.float32)
    for direction, (token, successor) in enumerate(successors.items()):
        tensors["token_embd.weight"][token, direction] = 1.0
        output[successor, direction] = LOGIT_SCALE
    for layer in range(N_LAYERS):
        for tensor_name, shape in _layer_shapes(N_EMBD, N_EMBD, N_FF).items():
            tensors[f"blk.{layer}.{tensor_name}"] = np.zeros(shape, dtype=np.float32)
        tensors[f"blk.{layer}.attn_norm.weight"] = np.ones(N_EMBD, dtype=np.float32)
        tensors[f"blk.{layer}.ffn_norm.weight"] = np.ones(N_EMBD, dtype=np.float32)
    tensors["output_norm.weight"] = np.ones(N_EMBD, dtype=np.float32)
    tensors["output.weight"] = output
    return _write_llama(path, tensors, N_HEADS, N_HEADS, "unidesk-scripted-llama", vocabulary, chat_template)


def write_peaked_gguf(path: Path, seed: int = 0, n_layers: int = 2) -> Path:
    """Write a random model (64 wide, 4 heads, 2 KV heads) with confident, context-dependent output."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n_heads, n_kv_heads, n_ff = 4, 2, 128
    kv_width = N_EMBD // n_heads * n_kv_heads

    def random(shape: tuple[int, ...], std: float) -> Any:
        return (rng.standard_normal(shape, dtype=np.float32) * np.float32(std)).astype(np.float32)

    tensors: dict[str, Any] = {"token_embd.weight": random((VOCAB_SIZE, N_EMBD), 1.0)}
    for layer in range(n_layers):
        for tensor_name, shape in _layer_shapes(N_EMBD, kv_width, n_ff).items():
            std = PEAKED_ATTENTION_STD if tensor_name.startswith("attn") else PEAKED_FFN_STD
            tensors[f"blk.{layer}.{tensor_name}"] = random(shape, std)
        tensors[f"blk.{layer}.attn_norm.weight"] = np.ones(N_EMBD, dtype=np.float32)
        tensors[f"blk.{layer}.ffn_norm.weight"] = np.ones(N_EMBD, dtype=np.float32)
    tensors["output_norm.weight"] = np.ones(N_EMBD, dtype=np.float32)
    tensors["output.weight"] = random((VOCAB_SIZE, N_EMBD), PEAKED_OUTPUT_STD)
    return _write_llama(path, tensors, n_heads, n_kv_heads, "unidesk-peaked-llama")


def write_unknown_architecture_gguf(path: Path) -> Path:
    """A well-formed GGUF whose architecture llama.cpp has never heard of."""
    import gguf
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(path, "frobnicator")
    writer.add_name("unknown-architecture")
    writer.add_block_count(1)
    writer.add_tensor("token_embd.weight", np.zeros((16, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
