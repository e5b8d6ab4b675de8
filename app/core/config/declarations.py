"""The one declaration of every UniDesk setting (SETTINGS), its sections, and cross-field rules."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from types import MappingProxyType

from app.core.config.schema import (
    Choice,
    CrossFieldRule,
    SettingSection,
    SettingSpec,
    SettingValue,
    TextFormat,
    UnknownSettingError,
    ValueKind,
    setting_problem,
)
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

SECTIONS: tuple[SettingSection, ...] = (
    SettingSection("model", "Model", "Which language model UniDesk runs."),
    SettingSection("engine", "Engine", "How the model is run: backend, memory, speed."),
    SettingSection("kb", "Knowledge base", "How documents are split, embedded and searched."),
    SettingSection("sampling", "Answers", "Default sampling for new answers."),
    SettingSection("ui", "Appearance", "Language and look of the window."),
    SettingSection("api", "Local API", "An OpenAI-compatible server on 127.0.0.1 for other tools."),
    SettingSection("diagnostics", "Diagnostics", "What UniDesk writes to its log, for bug reports."),
)

_AUTO = Choice("auto", "Automatic")


BOOL, INT, FLOAT, TEXT = ValueKind.BOOL, ValueKind.INT, ValueKind.FLOAT, ValueKind.STR

SETTINGS: tuple[SettingSpec, ...] = (
    # --- model ---
    SettingSpec(
        "model.path", TEXT, "", "Model",
        "The .gguf file or Hugging Face model folder to load. Empty: no model chosen yet.",
        text_format=TextFormat.PATH,
        applies_on_reload=True,
    ),
    SettingSpec(
        "model.folder", TEXT, "", "Models folder",
        "Where downloaded models are stored. Empty: the app's data folder (models/ inside it). "
        "Models already downloaded stay where they are.",
        text_format=TextFormat.PATH,
    ),
    SettingSpec(
        "model.download_source", TEXT, "auto", "Download source",
        "Where models are downloaded from. Automatic tries the Hugging Face hub, then the mirror, then "
        "ModelScope (for models published there), and says which one failed; a download that stopped "
        "resumes from the next source.",
        choices=(_AUTO, Choice("huggingface", "Hugging Face hub"), Choice("mirror", "Mirror"),
                 Choice("modelscope", "ModelScope")),
    ),
    SettingSpec(
        "model.mirror_url", TEXT, "https://hf-mirror.com", "Mirror address",
        "A mirror of the Hugging Face hub (the same addresses as HF_ENDPOINT uses), tried after the hub.",
        text_format=TextFormat.URL,
    ),
    # --- engine: backend ---
    SettingSpec(
        "engine.backend", TEXT, "auto", "Backend",
        "Who runs the model. Automatic picks vLLM on unified-memory Linux machines (DGX "
        "Spark, Grace-Hopper, Jetson) and llama.cpp everywhere else; vLLM runs Hugging Face "
        "models wherever vLLM is installed on Linux (an NVIDIA GPU, or vLLM's CPU build); Remote "
        "sends requests to an OpenAI-compatible server.",
        choices=(_AUTO, Choice("vllm", "vLLM"), Choice("llamacpp", "llama.cpp"),
                 Choice("remote", "Remote server")),
        group="Backend",
        applies_on_reload=True,
    ),
    SettingSpec(
        "engine.remote_url", TEXT, "", "Remote server address",
        "Base URL of an OpenAI-compatible server, e.g. http://192.168.1.20:8000/v1. Used only "
        "when the backend is Remote.",
        text_format=TextFormat.URL,
        group="Backend",
        applies_on_reload=True,
    ),
    SettingSpec(
        "engine.remote_api_key", TEXT, "", "Remote API key",
        "Key sent to the remote server, if it needs one. Stored in the settings file "
        "(readable only by you) and masked wherever it is shown.",
        secret=True,
        group="Backend",
        applies_on_reload=True,
    ),
    # --- engine: memory ---
    SettingSpec(
        "engine.context_length", INT, 0, "Context length",
        "Longest conversation (prompt plus answer) one chat can hold. 0: the planner picks "
        "the longest that fits in memory alongside the other settings.",
        minimum=512,
        maximum=1_048_576,
        special_values=(Choice(0, "Automatic"),),
        unit="tokens",
        group="Memory",
        applies_on_reload=True,
    ),
    SettingSpec(
        "engine.parallel_chats", INT, 0, "Parallel chats",
        "How many answers can be generated at the same time. Each one needs its own KV cache, "
        "so more parallel chats leave room for a shorter context. 0: the planner picks from the "
        "memory and the backend (several on a GPU or unified memory, fewer on a small CPU).",
        minimum=1,
        maximum=64,
        special_values=(Choice(0, "Automatic"),),
        group="Memory",
        applies_on_reload=True,
    ),
    SettingSpec(
        "engine.memory_utilization", FLOAT, 0.0, "Memory utilisation",
        "Fraction of the machine's memory (GPU memory, or the whole pool on unified-memory "
        "machines) the engine may use. 0: the planner budgets from what is actually free.",
        minimum=0.05,
        maximum=0.95,
        special_values=(Choice(0.0, "Automatic"),),
        group="Memory",
        advanced=True,
        applies_on_reload=True,
    ),
    SettingSpec(
        "engine.os_reserve_gib", FLOAT, 4.0, "Reserve for the system",
        "Memory always left free for the operating system and your other programs.",
        minimum=0.5,
        maximum=64.0,
        unit="GiB",
        group="Memory",
        applies_on_reload=True,
    ),
    SettingSpec(
        "engine.kv_cache_dtype", TEXT, "auto", "KV-cache type",
        "Precision of the attention cache. q8_0/fp8 halve its memory and q4_0 quarters it, at "
        "a small cost in quality. Automatic: f16 (or what the model and backend prefer).",
        choices=(_AUTO, Choice("f16", "f16"), Choice("bf16", "bf16"), Choice("q8_0", "q8_0"),
                 Choice("q4_0", "q4_0"), Choice("fp8", "fp8")),
        group="Memory",
        advanced=True,
        applies_on_reload=True,
    ),
    SettingSpec(
        "engine.block_size", INT, 0, "KV block size",
        "Tokens per KV-cache block (vLLM paged attention). 0: the backend's default.",
        choices=tuple(Choice(size, str(size)) for size in (16, 32, 64, 128, 256)),
        special_values=(Choice(0, "Automatic"),),
        unit="tokens",
        group="Memory",
        advanced=True,
        applies_on_reload=True,
    ),
    # --- engine: speed ---
    SettingSpec(
        "engine.prefix_caching", BOOL, True, "Prefix caching",
        "Reuse the cache of a prompt's start that was seen before (system prompt, documents), "
        "so follow-up questions start answering sooner.",
        group="Speed",
        advanced=True,
        applies_on_reload=True,
    ),
    SettingSpec(
        "engine.warmup", BOOL, True, "Warm up after loading",
        "Run one short request right after loading so the first real answer does not pay for "
        "kernel compilation and graph capture.",
        group="Speed",
        advanced=True,
    ),
    SettingSpec(
        "engine.gpu_layers", INT, -1, "GPU layers",
        "llama.cpp only: how many layers to put on the GPU. -1: all that fit (automatic); 0: "
        "run on the CPU only; N: the first N layers, the rest on the CPU.",
        minimum=0,
        maximum=1024,
        special_values=(Choice(-1, "Automatic"),),
        group="Speed",
        advanced=True,
        applies_on_reload=True,
    ),
    SettingSpec(
        "engine.threads", INT, 0, "CPU threads",
        "Threads for work done on the CPU. 0: one per physical core.",
        minimum=1,
        maximum=512,
        special_values=(Choice(0, "Automatic"),),
        group="Speed",
        advanced=True,
        applies_on_reload=True,
    ),
    SettingSpec(
        "engine.flash_attention", TEXT, "auto", "Flash attention",
        "Use the fused attention kernel. Automatic: on where the backend supports it.",
        choices=(_AUTO, Choice("on", "On"), Choice("off", "Off")),
        group="Speed",
        advanced=True,
        applies_on_reload=True,
    ),
    SettingSpec(
        "engine.speculative", TEXT, "off", "Speculative decoding",
        "vLLM only: guess several tokens ahead and let the model check them in one step. "
        "N-gram looks the guesses up in the prompt, which pays off when answers quote your "
        "documents; Draft model uses a small model of the same family. Off: one token per step.",
        choices=(Choice("off", "Off"), Choice("ngram", "N-gram (prompt lookup)"),
                 Choice("draft", "Draft model")),
        group="Speed",
        advanced=True,
        applies_on_reload=True,
    ),
    SettingSpec(
        "engine.speculative_tokens", INT, 4, "Speculative tokens",
        "vLLM only: how many tokens are guessed ahead per step when speculative decoding is on.",
        minimum=1,
        maximum=16,
        unit="tokens",
        group="Speed",
        advanced=True,
        applies_on_reload=True,
    ),
    SettingSpec(
        "engine.speculative_draft_model", TEXT, "", "Draft model",
        "vLLM only: the small Hugging Face model folder that drafts tokens when speculative "
        "decoding uses a draft model. It must share the main model's tokenizer.",
        text_format=TextFormat.PATH,
        group="Speed",
        advanced=True,
        applies_on_reload=True,
    ),
    # --- knowledge base ---
    SettingSpec(
        "kb.embedding_model", TEXT, "auto", "Embedding model",
        "Sentence-embedding model used to index documents: a name or a local folder. Automatic "
        "picks a multilingual model for this computer (multilingual-e5-small without a GPU, a "
        "stronger one with a GPU); the knowledge panel offers to download it once, and until then "
        "the bundled English all-MiniLM-L6-v2 is used. Changing it re-embeds the knowledge base in "
        "the background; search uses the old vectors until the new ones are complete.",
        allow_empty=False,
    ),
    SettingSpec(
        "kb.chunk_tokens", INT, 512, "Chunk size",
        "Length of the pieces documents are cut into before indexing.",
        minimum=64,
        maximum=4096,
        unit="tokens",
        group="Indexing",
    ),
    SettingSpec(
        "kb.chunk_overlap_tokens", INT, 64, "Chunk overlap",
        "How much each piece repeats of the one before it, so a sentence cut in two is still "
        "found. Must be smaller than the chunk size.",
        minimum=0,
        maximum=1024,
        unit="tokens",
        group="Indexing",
        advanced=True,
    ),
    SettingSpec(
        "kb.top_k", INT, 5, "Passages per question",
        "How many passages from your documents are given to the model with each question.",
        minimum=1,
        maximum=50,
        group="Search",
    ),
    SettingSpec(
        "kb.reranker", BOOL, True, "Rerank passages",
        "Re-order the found passages with a second model before answering, where it pays: the top "
        "40 on a GPU, the top 10 on a CPU with 4 or more cores, none on smaller CPUs or when the "
        "reranker model is not on this computer.",
        group="Search",
        advanced=True,
    ),
    SettingSpec(
        "kb.reranker_model", TEXT, "BAAI/bge-reranker-v2-m3", "Reranker model",
        "Cross-encoder used when reranking is on: a name in the local model cache or a folder. "
        "If it is not on this computer, passages are not reranked (search still works).",
        group="Search",
        advanced=True,
    ),
    SettingSpec(
        "kb.embedding_batch_size", INT, 64, "Embedding batch",
        "How many pieces are embedded at once while indexing. Larger batches keep a GPU busier; "
        "on a CPU 32-64 is best. Finished documents are saved after every batch.",
        minimum=1,
        maximum=1024,
        group="Indexing",
        advanced=True,
    ),
    SettingSpec(
        "kb.ocr", BOOL, True, "Recognise scanned pages",
        "Read the text of scanned PDF pages and of pictures (PNG, JPEG) you add, with text "
        "recognition (OCR) for Chinese and English that runs on this computer. It runs in the "
        "background and takes several seconds per page on a typical CPU. Off: such pages are left out.",
        group="Indexing",
    ),
    SettingSpec(
        "kb.max_file_mb", INT, 256, "Largest file",
        "Files bigger than this are not added to the knowledge base (they are listed as failed, with "
        "the reason), so one huge file cannot fill the memory or the disk.",
        minimum=1,
        maximum=16_384,
        unit="MB",
        group="Indexing",
        advanced=True,
    ),
    SettingSpec(
        "kb.read_timeout_seconds", INT, 300, "Time to read one file",
        "Reading one file, or one part of a big file, (before its text is embedded) is stopped after this "
        "long; the file is listed as failed and not tried again until it changes. Each scanned page read "
        "by text recognition has this long of its own: a page that takes longer is skipped, the rest is kept.",
        minimum=5,
        maximum=86_400,
        unit="s",
        group="Indexing",
        advanced=True,
    ),
    SettingSpec(
        "kb.read_memory_mb", INT, 3072, "Memory to read one file",
        "Files are read in a separate process that may use at most this much memory; a file that "
        "needs more is listed as failed instead of slowing down or stopping the app.",
        minimum=256,
        maximum=65_536,
        unit="MB",
        group="Indexing",
        advanced=True,
    ),
    SettingSpec(
        "kb.pause_while_answering", BOOL, True, "Pause indexing while answering",
        "While an answer is being written (in the window or through the local API), indexing waits "
        "between batches so the answer is not slowed down; it carries on when the answer is done.",
        group="Indexing",
        advanced=True,
    ),
    SettingSpec(
        "kb.watch_interval_seconds", INT, 30, "Check folders every",
        "How often folders you added are checked for new, changed and deleted files. 0: never "
        "(add them again to pick up changes).",
        minimum=5,
        maximum=86_400,
        special_values=(Choice(0, "Never"),),
        unit="s",
        group="Indexing",
        advanced=True,
    ),
    SettingSpec(
        "kb.chroma_server_url", TEXT, "", "Shared vector server",
        "Address of a chromadb server (e.g. http://192.168.1.20:8000) that keeps the document "
        "vectors, for a team sharing one server. Empty: the built-in store in your data folder.",
        text_format=TextFormat.URL,
        group="Storage",
        advanced=True,
    ),
    # --- sampling ---
    SettingSpec(
        "sampling.temperature", FLOAT, 0.7, "Temperature",
        "Randomness of answers: 0 always picks the likeliest word, higher is more varied.",
        minimum=0.0,
        maximum=2.0,
    ),
    SettingSpec(
        "sampling.top_p", FLOAT, 0.95, "Top-p",
        "Pick only among the likeliest words whose probabilities add up to this.",
        minimum=0.01,
        maximum=1.0,
        advanced=True,
    ),
    SettingSpec(
        "sampling.max_answer_tokens", INT, 4096, "Longest answer",
        "An answer stops after this many tokens. 0: no limit other than the context length.",
        minimum=16,
        maximum=1_048_576,
        special_values=(Choice(0, "No limit"),),
        unit="tokens",
    ),
    # --- ui ---
    SettingSpec(
        "ui.language", TEXT, "system", "Language",
        "Language of the window. System: follow the operating system.",
        choices=(Choice("system", "System"), Choice("en", "English"),
                 Choice("zh_CN", "简体中文")),
    ),
    SettingSpec(
        "ui.theme", TEXT, "system", "Theme",
        "Light or dark window. System: follow the operating system.",
        choices=(Choice("system", "System"), Choice("light", "Light"), Choice("dark", "Dark")),
    ),
    # --- local api ---
    SettingSpec(
        "api.enabled", BOOL, False, "Local API server",
        "Serve an OpenAI-compatible API on 127.0.0.1 (this computer only) while UniDesk runs.",
    ),
    SettingSpec(
        "api.port", INT, 8765, "API port",
        "Port of the local API server.",
        minimum=1024,
        maximum=65535,
        advanced=True,
    ),
    # --- diagnostics ---
    SettingSpec(
        "diagnostics.detailed_log", BOOL, False, "Detailed log",
        "Write debugging details (including llama.cpp's own messages) to the log file, for a bug report. "
        "Off: the log keeps what matters and stays small. Takes effect at the next start.",
    ),
)


def _overlap_below_chunk(values: Mapping[str, SettingValue]) -> str | None:
    overlap = values["kb.chunk_overlap_tokens"]
    chunk = values["kb.chunk_tokens"]
    if isinstance(overlap, int) and isinstance(chunk, int) and overlap >= chunk:
        reason = Text("SettingValues", QT_TRANSLATE_NOOP("SettingValues", "is not smaller than {0} = {1}"),
                      ("kb.chunk_tokens", chunk))
        return setting_problem("kb.chunk_overlap_tokens", str(overlap), reason)
    return None


RULES: tuple[CrossFieldRule, ...] = (
    CrossFieldRule(
        keys=("kb.chunk_tokens", "kb.chunk_overlap_tokens"),
        reset_key="kb.chunk_overlap_tokens",
        check=_overlap_below_chunk,
    ),
)

_SPECS_BY_KEY: Mapping[str, SettingSpec] = MappingProxyType({spec.key: spec for spec in SETTINGS})


def spec_for(key: str) -> SettingSpec:
    """The declaration of ``key``; raises :class:`UnknownSettingError` (a ``KeyError``) if none."""
    spec = _SPECS_BY_KEY.get(key)
    if spec is None:
        raise unknown_setting_error(key)
    return spec


def section_for(name: str) -> SettingSection | None:
    """The section called ``name``, or ``None``."""
    return next((section for section in SECTIONS if section.name == name), None)


def unknown_setting_error(key: str) -> UnknownSettingError:
    """The error for a key nobody declared, suggesting close matches."""
    suggestion = closest_setting_key(key)
    hint = None if suggestion is None else Text(
        "SettingsDeclaration", QT_TRANSLATE_NOOP("SettingsDeclaration", "Did you mean {0}?"), (suggestion,))
    return UnknownSettingError(key, f"{key} is not a known setting", hint)


def closest_setting_key(key: str) -> str | None:
    """The declared key ``key`` was probably meant to be (a known name in the wrong section, or a near
    spelling), or ``None``."""
    candidates = list(_SPECS_BY_KEY)
    by_name = {spec.name: spec.key for spec in SETTINGS}
    section, _, name = key.rpartition(".")
    # A known name in the wrong (or no) section; not for unknown sections ("telemetry.enabled").
    if name in by_name and (not section or section_for(section) is not None):
        return by_name[name]
    close = difflib.get_close_matches(key, candidates, n=1, cutoff=0.6)
    return close[0] if close else None
