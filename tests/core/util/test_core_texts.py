"""The core's words for the window are Texts that read exactly as before (the CLI, logs and JSON see no change)
and whose every template is in the Chinese catalogue, translated with the same placeholders."""

from __future__ import annotations

import string
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

import tests.core.hardware.hardware_machines as machines
from app.core.chat.errors import QuestionTooLongError
from app.core.chat.prompt import assemble_prompt
from app.core.chat.records import Citation, source_label
from app.core.config import Settings, SettingValueError, describe_allowed, spec_for, validate_value
from app.core.engines.base import ModelLoadError
from app.core.engines.selection import select_backend
from app.core.hardware import format_report, probe_hardware
from app.core.hardware.backend import recommend_backend
from app.core.planner import PlanRequest, plan_memory, read_model_metadata
from app.core.util.translatable import LAYOUT, Sentences, Text
from tests.core.planner.fake_hardware import cpu_only, gb10, rtx4090
from tests.core.planner.published_configs import LLAMA_3_1_8B, write_config

TS_FILE = Path(__file__).resolve().parents[3] / "resources" / "translations" / "unidesk_zh_CN.ts"


def catalogue() -> dict[tuple[str, str], str]:
    """(context, source) -> finished Chinese translation."""
    found = {}
    for context in ElementTree.parse(TS_FILE).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            translation = message.find("translation")
            if translation is not None and translation.get("type") is None and translation.text:
                found[(name, message.findtext("source") or "")] = translation.text
    return found


def texts_in(text: str) -> Iterator[Text]:
    """``text`` and every Text among its arguments, however deep."""
    if isinstance(text, Text):
        yield text
        for arg in text.args:
            if isinstance(arg, str):
                yield from texts_in(arg)


def placeholders(template: str) -> list[tuple[str, str]]:
    return sorted((name, spec) for _, name, spec, _ in string.Formatter().parse(template) if name is not None)


def assert_translatable(*texts: str) -> None:
    """Each text is a Text whose templates (and nested ones) the catalogue translates with the same placeholders."""
    known = catalogue()
    for text in texts:
        assert isinstance(text, Text), text
        for part in texts_in(text):
            if part.context == LAYOUT:
                continue
            translation = known.get((part.context, part.template))
            assert translation is not None, f"not in the catalogue: [{part.context}] {part.template}"
            assert placeholders(translation) == placeholders(part.template), part.template


def refusal(key: str, value: object) -> SettingValueError:
    with pytest.raises(SettingValueError) as caught:
        validate_value(spec_for(key), value)
    return caught.value


def test_setting_checks_read_as_before() -> None:
    allowed = [describe_allowed(spec_for(key)) for key in
               ("kb.top_k", "engine.context_length", "engine.kv_cache_dtype", "engine.remote_url",
                "engine.memory_utilization")]
    assert allowed == ["a whole number from 1 to 50",
                       "a whole number from 512 to 1048576 tokens, or 0 for automatic",
                       "one of: auto, f16, bf16, q8_0, q4_0, fp8",
                       'an http:// or https:// address (or "" for none)',
                       "a number from 0.05 to 0.95, or 0 for automatic"]
    errors = [refusal("kb.top_k", 0), refusal("engine.context_length", 100),
              refusal("engine.kv_cache_dtype", "q9"), refusal("kb.top_k", "x"),
              refusal("kb.top_k", 2.5), refusal("engine.remote_url", "ftp://x")]
    assert [str(error) for error in errors] == [
        "kb.top_k = 0 is below the minimum 1. Allowed: a whole number from 1 to 50.",
        "engine.context_length = 100 is below the minimum 512 tokens (or 0 for automatic). "
        "Allowed: a whole number from 512 to 1048576 tokens, or 0 for automatic.",
        'engine.kv_cache_dtype = "q9" is not one of: auto, f16, bf16, q8_0, q4_0, fp8. '
        "Allowed: one of: auto, f16, bf16, q8_0, q4_0, fp8.",
        'kb.top_k = "x" is text, not a whole number. Allowed: a whole number from 1 to 50.',
        "kb.top_k = 2.5 is not a whole number. Allowed: a whole number from 1 to 50.",
        'engine.remote_url = "ftp://x" is not an http:// or https:// address. '
        'Allowed: an http:// or https:// address (or "" for none).',
    ]
    assert [error.problem for error in errors[:2]] == [
        "0 is below the minimum 1", "100 is below the minimum 512 tokens (or 0 for automatic)"]
    assert_translatable(*allowed, *(error.message for error in errors), *(error.hint or "" for error in errors),
                        *(error.problem for error in errors))


def test_a_broken_rule_between_settings_reads_as_before() -> None:
    with pytest.raises(SettingValueError) as caught:
        Settings.defaults().with_changes({"kb.chunk_overlap_tokens": 500, "kb.chunk_tokens": 256})
    error = caught.value
    assert error.key == "kb.chunk_overlap_tokens"
    assert str(error) == ("kb.chunk_overlap_tokens = 500 is not smaller than kb.chunk_tokens = 256. "
                          "Change one of: kb.chunk_tokens, kb.chunk_overlap_tokens.")
    assert error.problem == "500 is not smaller than kb.chunk_tokens = 256"
    assert_translatable(error.message, error.hint or "", error.problem)


def test_plan_explanations_read_as_before(tmp_path: Path) -> None:
    model = read_model_metadata(write_config(tmp_path / "llama", LLAMA_3_1_8B))
    fits = plan_memory(model, gb10(), PlanRequest("vllm", 32768, 4))
    capped = plan_memory(model, gb10(), PlanRequest("vllm", 262144, 4))
    nowhere = plan_memory(model, cpu_only(16, 12), PlanRequest("llamacpp", 8192, 1))
    fewer = plan_memory(model, rtx4090(), PlanRequest("llamacpp", 131072, 8))
    assert [fits.explanation, capped.explanation, nowhere.explanation, fewer.explanation] == [
        "32768 tokens × 4 chats fits: it needs 35.1 GiB of the 116.0 GiB free.",
        "131072 tokens × 4 chats fits: it needs 83.1 GiB of the 116.0 GiB free "
        "(the model was trained for at most 131072 tokens).",
        "Even 2048 tokens × 1 chat with a q8_0 KV cache (the least) needs 15.2 GiB but 8.0 GiB is free, so this "
        "model does not fit here (its weights alone are 15.0 GiB).",
        "131072 tokens × 8 chats needs 125.6 GiB of RAM but 44.0 GiB is free after the 4.0 GiB reserve; "
        "32768 tokens × 8 chats with 15 of 32 layers on the GPU fits.",
    ]
    assert fits.to_dict()["explanation"] == fits.explanation
    assert_translatable(fits.explanation, capped.explanation, nowhere.explanation, fewer.explanation)


def test_backend_reasons_and_refusals_read_as_before(tmp_path: Path) -> None:
    darwin = recommend_backend(system="Darwin", is_unified=True, has_gpu=True, vllm_importable=lambda: False)
    assert darwin.reason == "Unified memory on Darwin, where vLLM does not run: llama.cpp runs the model."
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    folder = tmp_path / "hf-model"
    folder.mkdir()
    chosen = select_backend(gguf, "vllm", gb10())
    assert chosen.reason == "GGUF files run on llama.cpp (vLLM was chosen in settings, but it does not load GGUF)"
    refusals = []
    for setting, machine in (("llamacpp", gb10()), ("auto", cpu_only())):
        with pytest.raises(ModelLoadError) as caught:
            select_backend(folder, setting, replace(machine, recommended_backend=darwin))
        refusals.append(caught.value)
    assert [str(error) for error in refusals] == [
        "hf-model is a Hugging Face model folder, which llama.cpp cannot load. "
        "Choose a .gguf file, or set the backend to auto or vLLM.",
        "hf-model is a Hugging Face model folder; on this machine models run on llama.cpp, which needs a .gguf "
        "file. Choose a GGUF version of the model (Unified memory on Darwin, where vLLM does not run: llama.cpp "
        "runs the model.).",
    ]
    assert_translatable(darwin.reason, chosen.reason, *(str(error) for error in refusals))


def test_the_machine_summary_reads_as_before(tmp_path: Path) -> None:
    report = probe_hardware(machines.cpu_only_server(tmp_path).sources, measure_bandwidth=False)
    summary = format_report(report)
    assert summary.splitlines()[:5] == [
        "OS              Linux 6.8.0-test (x86_64)",
        "CPU             AMD EPYC 9654 96-Core Processor, 4 cores / 8 threads",
        "RAM             31.0 GiB total, 27.0 GiB available",
        "GPU             none",
        "Unified memory  no",
    ]
    assert summary.splitlines()[-4:] == [
        "                - No GPU found (no NVIDIA device, no AMD card in /sys/class/drm, not Apple Silicon)",
        "                - Verdict: no GPU; models run from system RAM on the CPU",
        "Bandwidth       unknown (no table entry for AMD EPYC 9654 96-Core Processor; measurement not requested)",
        "Backend         llamacpp (No GPU: llama.cpp runs the model on the CPU.)",
    ]
    spark = format_report(probe_hardware(machines.dgx_spark(tmp_path / "spark").sources, measure_bandwidth=False))
    assert "NVIDIA GB10 (shares system RAM, integrated, compute 12.1, driver 580.95)" in spark
    assert_translatable(summary, spark)


def test_source_labels_read_as_before() -> None:
    labels = [source_label("/docs/report.pdf", 3, " Intro "), source_label("/docs/notes.md", None, ""),
              source_label("/docs/a.pdf", 12, "")]
    assert labels == ["report.pdf, p. 3, Intro", "notes.md", "a.pdf, p. 12"]
    citation = Citation(1, "/docs/report.pdf", 3, "", 7, True)
    assert citation.label == citation.to_dict()["label"] == "report.pdf, p. 3"
    assert_translatable(labels[0], labels[2], citation.label)


def test_a_question_too_long_reads_as_before() -> None:
    with pytest.raises(QuestionTooLongError) as caught:
        assemble_prompt(system_prompt="", history=(), question="word " * 400, passages=(), context_length=64,
                        reserve_for_answer=16, count_tokens=lambda text: len(text.split()))
    error = caught.value
    prompt_tokens = error.needed_tokens - 16
    assert prompt_tokens > 400 and error.context_tokens == 64
    assert str(error) == (f"The question does not fit: with the system prompt it takes {prompt_tokens} tokens, "
                          "and 16 more are kept for the answer, but the model's context holds 64 tokens. "
                          "Shorten the question, or raise the context length in Settings and reload the model.")
    assert_translatable(str(error))


def test_settings_file_problems_read_as_before() -> None:
    from app.core.config.migrations import CURRENT_VERSION
    from app.core.config.reading import parse_settings_bytes

    parsed = parse_settings_bytes(
        b'version = "x"\ntelemetry = 1\n[engine]\nparallel_chats = -3\nparalel_chats = 2\n'
        b'[kb]\nchunk_tokens = 256\nchunk_overlap_tokens = 500\n')
    assert [str(problem) for problem in parsed.problems] == [
        'version = "x" in settings.toml is not a format version (a whole number from 1); reading the file as format '
        f"{CURRENT_VERSION}.",
        "telemetry is not a known setting; ignored.",
        "engine.paralel_chats is not a known setting; ignored (did you mean engine.parallel_chats?).",
        "engine.parallel_chats = -3 is below the minimum 1 (or 0 for automatic); using the default 0.",
        "kb.chunk_overlap_tokens = 500 is not smaller than kb.chunk_tokens = 256; using the default 64 for "
        "kb.chunk_overlap_tokens.",
    ]
    broken = parse_settings_bytes(b"[engine\n").problems[0].message
    assert broken.startswith("settings.toml has a syntax error: ") and broken.endswith(
        "; using the defaults for all settings.")
    newer = parse_settings_bytes(b"version = 99\n").problems[0].message
    assert newer.startswith("settings.toml was written by a newer UniDesk (file format 99; this version knows format ")
    assert_translatable(*(problem.message for problem in parsed.problems), broken, newer)


def test_soc_evidence_reads_as_before() -> None:
    from app.core.hardware.cpu_memory import CpuMemoryFacts
    from app.core.hardware.soc import _grace_sign

    facts = CpuMemoryFacts("Grace", 72, 72, 1 << 36, 1 << 35, ("Neoverse-V2",), "jep106:036b:0241")
    grace = _grace_sign(facts, "aarch64")
    assert grace == "Grace CPU: /sys/devices/soc0/soc_id is jep106:036b:0241 (NVIDIA Grace)"
    cores = _grace_sign(replace(facts, soc_id=None), "aarch64")
    assert cores == "Neoverse-V2 cores on aarch64 in /proc/cpuinfo (the core of NVIDIA Grace)"
    assert_translatable(grace or "", cores or "")


def test_document_problems_read_as_before_and_are_recognised_from_their_english(tmp_path: Path) -> None:
    from app.core.kb.parsers import parse_document
    from app.core.kb.parsers.document_texts import failure_text
    from app.core.kb.parsers.errors import DocumentError

    binary = tmp_path / "data.txt"
    binary.write_bytes(b"ab\x00cd" * 20)
    empty = tmp_path / "empty.md"
    empty.write_bytes(b"")
    errors = []
    for path in (binary, empty, tmp_path / "gone.txt"):
        with pytest.raises(DocumentError) as caught:
            parse_document(path)
        errors.append(caught.value)
    assert [str(error) for error in errors] == [
        f"{binary}: this is not a text file: it contains NUL bytes, which text files never do. Only text documents "
        "can be added; if it is a document, save it as text, PDF or DOCX.",
        f"{empty}: the file is empty (0 bytes). There is nothing to index in it.",
        f"{tmp_path / 'gone.txt'}: the file does not exist (moved or deleted?) Check the path, or remove the entry "
        "if the file is gone for good.",
    ]
    assert_translatable(*(str(error) for error in errors))
    stored = str(errors[0]).removeprefix(f"{binary}: ")  # what the knowledge base keeps is plain English
    again = failure_text(str(stored))
    assert again == stored and isinstance(again, Text)
    problem = again.args[0]
    assert isinstance(problem, Text) and isinstance(problem.args[0], Text)  # the nested problem is known too
    assert_translatable(again)
    assert failure_text("something nobody wrote") == "something nobody wrote"
    for error in errors[1:]:  # a problem that ends in a word took a full stop; one ending in "?)" did not
        stored = str(error).split(": ", 1)[1]
        assert failure_text(stored) == stored and isinstance(failure_text(stored), Sentences)
    older = failure_text("the file is empty (0 bytes) There is nothing to index in it.")  # stored before the stop
    assert isinstance(older, Sentences) and older == "the file is empty (0 bytes). There is nothing to index in it."


def test_download_errors_read_as_before(tmp_path: Path) -> None:
    from app.core.models.downloads import check_disk_space
    from app.core.models.errors import NotEnoughDiskSpaceError
    from app.core.models.units import human_size

    with pytest.raises(NotEnoughDiskSpaceError) as caught:
        check_disk_space(tmp_path, 1 << 60, "Qwen3 8B", margin_bytes=0)
    text = str(caught.value)
    assert text.startswith(f"Not enough disk space for Qwen3 8B: it needs {human_size(1 << 60)} more (and "
                           f"{human_size(0)} to spare), but only ")
    assert text.endswith(f"is free on {tmp_path}. Free up disk space, or choose another models folder in Settings "
                         "(model.folder).")
    assert_translatable(text)


def test_catalog_errors_read_as_before(tmp_path: Path) -> None:
    from app.core.models.catalog import load_catalog
    from app.core.models.errors import CatalogError

    catalog = load_catalog()
    unknown_id = catalog.models[0].id + "x"
    with pytest.raises(CatalogError) as near_miss:
        catalog.model(unknown_id)
    assert str(near_miss.value).startswith(
        f"'{unknown_id}' is not in the model catalog. Did you mean {catalog.models[0].id}")
    with pytest.raises(CatalogError) as no_variant:
        catalog.models[0].variant("q1_z")
    assert str(no_variant.value).startswith(f"{catalog.models[0].id} has no variant 'q1_z'. Choose one of: ")
    broken = tmp_path / "models.json"
    broken.write_text('{"schema": 1, "models": [{"id": "Bad Id"}]}', encoding="utf-8")
    with pytest.raises(CatalogError) as malformed:
        load_catalog(broken)
    assert str(malformed.value) == (f"Model catalog {broken}: models[0].name must be a non-empty string. Fix the "
                                    "catalog file (or reinstall UniDesk if you did not edit it).")
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(CatalogError) as not_json:
        load_catalog(broken)
    assert str(not_json.value).startswith(f"The model catalog {broken} is not valid JSON (line 1: ")
    for error in (near_miss.value, no_variant.value, malformed.value, not_json.value):
        assert_translatable(error.message, error.hint or Text(LAYOUT, ""))
