"""`unidesk kb add|list|query|remove` as a user runs them: a real process, real files, one home folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[2]


def unidesk(home: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key != "UNIDESK_HOME"}
    return subprocess.run(
        [sys.executable, "-m", "app", "--home", str(home), *arguments],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, env=environment,
    )


@pytest.fixture(scope="module")
def added(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, object]]:
    root = tmp_path_factory.mktemp("cli")
    folder = root / "docs"
    folder.mkdir()
    (folder / "otters.md").write_text("# Otters\n\nSea otters eat sea urchins and float on their backs.\n")
    (folder / "panda.txt").write_text("大熊猫主要吃竹子，生活在四川的山区。", encoding="utf-8")
    (folder / "blank.txt").write_text("")
    home = root / "home"
    result = unidesk(home, "kb", "add", str(folder), "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    summary["_stderr"] = result.stderr
    return home, folder, summary


def test_add_prints_a_json_summary_and_progress_on_stderr(added: tuple[Path, Path, dict[str, object]]) -> None:
    _, folder, summary = added
    assert summary["files_indexed"] == 2 and summary["files_failed"] == 1
    assert summary["chunk_tokens"] == 254 and summary["cancelled"] is False
    problems = summary["problems"]
    assert isinstance(problems, list) and problems[0]["kind"] == "empty"
    assert problems[0]["path"] == str(folder / "blank.txt")
    progress = str(summary["_stderr"])
    assert "kb: starting: loading the embedding model" in progress, "progress goes to stderr"


def test_list_json_shows_every_document_with_status(added: tuple[Path, Path, dict[str, object]]) -> None:
    home, _, _ = added
    result = unidesk(home, "kb", "list", "--json")
    assert result.returncode == 0, result.stderr
    documents = {Path(item["path"]).name: item for item in json.loads(result.stdout)}
    assert documents["otters.md"]["status"] == "indexed" and documents["otters.md"]["chunk_count"] >= 1
    assert documents["blank.txt"]["status"] == "failed" and documents["blank.txt"]["error_kind"] == "empty"
    text = unidesk(home, "kb", "list")
    assert "otters.md" in text.stdout and "empty:" in text.stdout


def test_query_json_is_a_list_of_hits_with_citations(added: tuple[Path, Path, dict[str, object]]) -> None:
    home, _, _ = added
    result = unidesk(home, "kb", "query", "大熊猫吃什么", "--k", "1", "--json")
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)
    assert isinstance(hits, list) and len(hits) == 1
    hit = hits[0]
    assert Path(hit["path"]).name == "panda.txt" and "竹子" in hit["text"]
    for key in ("document_id", "page", "heading", "score", "retrievers", "char_start", "char_end"):
        assert key in hit


def test_query_text_output_names_file_and_heading(added: tuple[Path, Path, dict[str, object]]) -> None:
    home, _, _ = added
    result = unidesk(home, "kb", "query", "what do otters eat?", "--k", "1")
    assert result.returncode == 0, result.stderr
    first_line = result.stdout.splitlines()[0]
    assert first_line.startswith("1. ") and first_line.endswith("otters.md § Otters")


def test_query_says_each_passages_rank_and_which_search_found_it(
    added: tuple[Path, Path, dict[str, object]]
) -> None:
    home, _, _ = added
    result = unidesk(home, "kb", "query", "what do otters eat?", "--k", "2")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    hits = json.loads(unidesk(home, "kb", "query", "what do otters eat?", "--k", "2", "--json").stdout)
    words = {("keyword",): "keywords", ("vector",): "meaning", ("keyword", "vector"): "keywords and meaning"}
    for rank, hit in enumerate(hits, start=1):
        at = lines.index(next(line for line in lines if line.startswith(f"{rank}. ")))
        assert lines[at].startswith(f"{rank}. {hit['path']}")
        found = words[tuple(sorted(hit["retrievers"]))]
        assert lines[at + 1] == f"   found by {found} · document {hit['document_id']}"
    assert "score" not in result.stdout  # a fused score such as 0.0164 means nothing to a reader
    assert "searched by keywords and meaning" in lines[-1]


def test_list_columns_stay_aligned_whatever_the_values(added: tuple[Path, Path, dict[str, object]]) -> None:
    home, _, _ = added
    lines = unidesk(home, "kb", "list").stdout.splitlines()
    header, rows = lines[0], [line for line in lines[1:] if line.rstrip().endswith((".md", ".txt"))]
    assert len(rows) == 3
    for name in ("STAGE", "FORMAT", "PATH"):
        column = header.index(name)
        for row in rows:
            assert row[column - 1] == " " and row[column] != " ", (name, row)  # every row's cell starts there
    for name in ("CHUNKS", "PAGES"):  # numbers end under the end of their heading
        end = header.index(name) + len(name)
        for row in rows:
            assert row[end - 1].isdigit() and row[end] == " ", (name, row)


def test_remove_then_it_is_gone_and_unknown_ids_are_one_line_errors(
    added: tuple[Path, Path, dict[str, object]],
) -> None:
    home, _, _ = added
    documents = json.loads(unidesk(home, "kb", "list", "--json").stdout)
    blank = next(item for item in documents if item["path"].endswith("blank.txt"))
    result = unidesk(home, "kb", "remove", str(blank["id"]))
    assert result.returncode == 0 and "removed" in result.stdout
    remaining = [item["id"] for item in json.loads(unidesk(home, "kb", "list", "--json").stdout)]
    assert blank["id"] not in remaining and len(remaining) == 2
    missing = unidesk(home, "kb", "remove", "9999")
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    errors = [line for line in missing.stderr.splitlines() if line.startswith("unidesk: error:")]
    assert len(errors) == 1 and "no document 9999" in errors[0]


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    result = unidesk(tmp_path, "kb", "query", "x", "--k", "0")
    assert result.returncode == 1 and "--k must be at least 1" in result.stderr
    empty = unidesk(tmp_path, "kb", "list")
    assert empty.returncode == 0 and "empty" in empty.stdout
