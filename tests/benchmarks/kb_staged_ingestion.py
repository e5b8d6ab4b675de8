"""Benchmark: a big one-line file through `unidesk kb add` (keyword-findable time, embedding rate against one raw
``encode`` of the same chunks, peak memory), small files beside it, and a DOCX zip bomb; one JSON document out.

Usage: ``.venv/bin/python -m tests.benchmarks.kb_staged_ingestion [--only big,folder,bomb,ratio] [--mb 10.8]
[--embed-seconds 240 | --full] [--ratio-mb 0.15] [--rounds 2] [--work-dir DIR]``

``kb add`` runs as a real subprocess in its own home (MiniLM, chunks of 254 tokens); this process watches its
SQLite file read-only (status, keyword index), its progress lines on stderr (chunks embedded) and the resident
memory of it and of its reader process. Without ``--full`` embedding is timed for ``--embed-seconds`` and then
cancelled (a 2-core machine embeds ~5-25 chunks of 254 tokens per second, so a 10.8 MB file takes 10-40 minutes);
the raw encode is timed on the first chunks of the same document, right after, in this process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

from tests.benchmarks.kb_instrument import load_average, log, machine_facts

REPO_ROOT = Path(__file__).resolve().parents[2]
MARKER = "zeppelinquokka"
FIRST_MARKER = "quokkazeppelin"
"""Placed at 1% of the line: found once the first part of the file is committed (big files stream in parts)."""
_WORDS = ("the system memory kernel process thread cache index vector query latency throughput model token "
          "embedding search document parser chunk file network storage disk").split()
_PROGRESS = re.compile(r"(\d+)/(\d+) chunks")


def one_line_file(path: Path, megabytes: float, marker_at: float = 0.95) -> Path:
    """Sentences on one line, ``megabytes`` MB; MARKER (a word found nowhere else) at ``marker_at`` of it,
    FIRST_MARKER at 1% of it."""
    rng = random.Random(7)
    target = int(megabytes * 1024 * 1024)
    written, marked, first_marked = 0, False, False
    with path.open("w", encoding="utf-8") as stream:
        while written < target:
            words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 20))]
            if not first_marked and written >= target * 0.01:
                words[3], first_marked = FIRST_MARKER, True
            if not marked and written >= target * marker_at:
                words[3], marked = MARKER, True
            sentence = " ".join(words).capitalize() + ". "
            stream.write(sentence)
            written += len(sentence)
    return path


def make_home(root: Path) -> Path:
    home = root / "home"
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "settings.toml").write_text('[kb]\nembedding_model = "all-MiniLM-L6-v2"\n', encoding="utf-8")
    return home


class Ingestion:
    """``unidesk kb add PATHS`` in a subprocess, watched: memory, progress lines, the database."""

    def __init__(self, home: Path, paths: list[Path]) -> None:
        import psutil

        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app", "--home", str(home), "kb", "add", *map(str, paths)],
            cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.database = home / "data" / "kb" / "kb.sqlite3"
        self.peak_main = self.peak_reader = 0
        self.chunks: list[tuple[float, int, int]] = []  # (seconds, embedded, total)
        self.lines: list[str] = []
        self._psutil = psutil.Process(self.process.pid)
        threading.Thread(target=self._read_progress, daemon=True).start()
        threading.Thread(target=self._sample_memory, daemon=True).start()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def _read_progress(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line.rstrip())
            match = _PROGRESS.search(line)
            if match:
                self.chunks.append((self.elapsed(), int(match.group(1)), int(match.group(2))))

    def _sample_memory(self) -> None:
        while self.process.poll() is None:
            try:
                self.peak_main = max(self.peak_main, self._psutil.memory_info().rss)
                for child in self._psutil.children(recursive=True):
                    self.peak_reader = max(self.peak_reader, child.memory_info().rss)
            except Exception:
                pass
            time.sleep(0.1)

    def query(self, sql: str, *parameters: object) -> list[sqlite3.Row]:
        if not self.database.exists():
            return []
        try:
            connection = sqlite3.connect(f"file:{self.database}?mode=ro", uri=True, timeout=5)
            connection.row_factory = sqlite3.Row
            try:
                return connection.execute(sql, parameters).fetchall()
            finally:
                connection.close()
        except sqlite3.Error:
            return []

    def stages(self) -> dict[str, tuple[str, bool]]:
        """path -> (status, embedded)."""
        rows = self.query(
            "SELECT path, status, EXISTS (SELECT 1 FROM vector_members m WHERE m.document_id = d.id) AS embedded "
            "FROM documents d")
        return {str(row["path"]): (str(row["status"]), bool(row["embedded"])) for row in rows}

    def keyword_hits(self, word: str) -> int:
        rows = self.query(
            "SELECT COUNT(*) AS n FROM chunk_terms t JOIN chunks c ON c.id = t.rowid JOIN documents d "
            "ON d.id = c.document_id WHERE chunk_terms MATCH ? AND d.status IN ('indexed', 'indexing')", word)
        return int(rows[0]["n"]) if rows else 0

    def stop(self) -> int:
        """Cancel like Ctrl+C (finished work is kept) and wait for the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            return self.process.wait(timeout=300)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


def wait_until(condition: Any, ingestion: Ingestion, limit: float) -> float | None:
    while ingestion.elapsed() < limit:
        if condition():
            return ingestion.elapsed()
        if ingestion.process.poll() is not None:
            return ingestion.elapsed() if condition() else None
        time.sleep(0.1)
    return None


def embedding_rate(samples: list[tuple[float, int, int]]) -> tuple[float, int]:
    """Chunks per second from the first to the last progress line that moved, and chunks embedded."""
    moving = [sample for sample in samples if sample[1] > 0]
    if len(moving) < 2:
        return 0.0, moving[-1][1] if moving else 0
    first, last = moving[0], moving[-1]
    return (last[1] - first[1]) / max(1e-9, last[0] - first[0]), last[1]


def raw_encode_rate(database: Path, document_path: str, count: int) -> dict[str, Any]:
    """One ``SentenceTransformer.encode(texts, batch_size=64)`` over the document's first ``count`` chunks."""
    from app.core.kb.embedder import Embedder

    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    texts = [row[0] for row in connection.execute(
        "SELECT c.text FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = ? "
        "ORDER BY c.ordinal LIMIT ?", (document_path, count))]
    connection.close()
    embedder = Embedder("all-MiniLM-L6-v2", device="cpu")
    model = sentence_transformer(embedder)
    model.encode(texts[:8], batch_size=64)  # warm-up
    started = time.perf_counter()
    model.encode(texts, batch_size=64)
    seconds = time.perf_counter() - started
    return {"chunks": len(texts), "seconds": round(seconds, 2), "chunks_per_second": round(len(texts) / seconds, 2)}


def sentence_transformer(embedder: Any) -> Any:
    """The SentenceTransformer an Embedder loaded in this process (what "one raw encode" calls)."""
    loaded = embedder._loaded_model()
    return getattr(loaded, "model", loaded)


def measure_big(work: Path, megabytes: float, embed_seconds: float | None) -> dict[str, Any]:
    big = one_line_file(work / "big-one-line.txt", megabytes)
    ingestion = Ingestion(make_home(work / "big"), [big])
    first_findable = wait_until(lambda: ingestion.keyword_hits(FIRST_MARKER) > 0, ingestion, 1800)
    log(f"big: its first part findable by keywords at {first_findable}")
    findable = wait_until(lambda: ingestion.keyword_hits(MARKER) > 0, ingestion, 1800)
    log(f"big: findable by keywords at {findable}")
    limit = (findable or 0) + (embed_seconds if embed_seconds is not None else 86_400)
    wait_until(lambda: ingestion.process.poll() is not None, ingestion, limit)
    finished = ingestion.process.poll() is not None
    total = ingestion.elapsed()
    status = ingestion.stop()
    rate, embedded = embedding_rate(ingestion.chunks)
    chunks_total = ingestion.chunks[-1][2] if ingestion.chunks else 0
    raw = raw_encode_rate(ingestion.database, str(big.resolve()), max(64, min(embedded or 512, 512)))
    return {
        "file_mb": round(big.stat().st_size / 2**20, 2), "chunks": chunks_total,
        "keyword_findable_s": None if findable is None else round(findable, 1),
        "keyword_probe": f"FTS5 match of a word placed at 95% of the line ({MARKER}), in what search returns "
                         "(indexed documents and the committed parts of one being read)",
        "first_part_findable_s": None if first_findable is None else round(first_findable, 1),
        "first_part_probe": f"the same for a word at 1% of the line ({FIRST_MARKER})",
        "fully_embedded": finished, "seconds_run": round(total, 1), "exit_status": status,
        "chunks_embedded": embedded, "pipeline_embedding_chunks_per_second": round(rate, 2),
        "raw_encode": raw,
        "embedding_over_raw_encode": round(rate / raw["chunks_per_second"], 3) if raw["chunks_per_second"] else None,
        "peak_rss_mb": {"kb_add_process": round(ingestion.peak_main / 2**20), "reader_process": round(
            ingestion.peak_reader / 2**20)},
        "load_average_after": load_average(),
        "last_progress_line": ingestion.lines[-1] if ingestion.lines else "",
    }


def measure_folder(work: Path, megabytes: float, embed_seconds: float) -> dict[str, Any]:
    folder = work / "folder-docs"
    folder.mkdir(parents=True, exist_ok=True)
    big = one_line_file(folder / "big-one-line.txt", megabytes)
    smalls = []
    for index in range(20):
        small = folder / f"note{index:02d}.txt"
        small.write_text(f"Note {index}: the {_WORDS[index]} review moved to room {index}. Bring the figures.",
                         encoding="utf-8")
        smalls.append(str(small.resolve()))
    ingestion = Ingestion(make_home(work / "folder"), [folder])
    findable: dict[str, float] = {}
    embedded: dict[str, float] = {}
    big_key = str(big.resolve())
    deadline = 1800.0
    while ingestion.elapsed() < deadline and ingestion.process.poll() is None:
        now = ingestion.elapsed()
        for path, (status, vectors) in ingestion.stages().items():
            if status == "indexed":
                findable.setdefault(path, now)
            if vectors:
                embedded.setdefault(path, now)
        if all(path in embedded for path in smalls) and deadline == 1800.0:
            deadline = now + embed_seconds
        time.sleep(0.2)
    ingestion.stop()
    small_embedded = [embedded.get(path) for path in smalls]
    return {
        "small_files": len(smalls), "big_file_mb": round(big.stat().st_size / 2**20, 2),
        "last_small_findable_s": max((findable.get(path, float("nan")) for path in smalls), default=None),
        "last_small_embedded_s": None if None in small_embedded else round(max(small_embedded), 1),  # type: ignore[type-var]
        "big_findable_s": None if big_key not in findable else round(findable[big_key], 1),
        "big_embedded_s": None if big_key not in embedded else round(embedded[big_key], 1),
        "every_small_embedded_before_big_finished": None not in small_embedded and (
            big_key not in embedded or max(small_embedded) < embedded[big_key]),  # type: ignore[type-var]
        "load_average_after": load_average(),
    }


def zip_bomb_docx(path: Path, inflated_mb: int = 400) -> Path:
    """A DOCX whose document part is ``inflated_mb`` MB of repeated paragraph XML (made from a real DOCX)."""
    from tests.fixtures.documents import write_docx

    real = write_docx(path.with_name("real.docx"))
    paragraph = b"<w:p><w:r><w:t>" + b"lorem ipsum " * 80 + b"</w:t></w:r></w:p>"
    block = paragraph * (1024 * 1024 // len(paragraph) + 1)
    with zipfile.ZipFile(real) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            if info.filename != "word/document.xml":
                target.writestr(info, source.read(info.filename))
        with target.open("word/document.xml", "w", force_zip64=True) as part:
            part.write(b'<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/'
                       b'wordprocessingml/2006/main"><w:body>')
            for _ in range(inflated_mb):
                part.write(block[: 1024 * 1024])
            part.write(b"</w:body></w:document>")
    return path


def measure_bomb(work: Path) -> dict[str, Any]:
    from app.core.kb.parse_worker import ParseLimits, ParseWorker
    from app.core.kb.parsers import DocumentError, parse_document

    bomb = zip_bomb_docx(work / "bomb.docx")
    inflated = sum(info.file_size for info in zipfile.ZipFile(bomb).infolist())
    result: dict[str, Any] = {"file_mb": round(bomb.stat().st_size / 2**20, 2),
                              "inflates_to_mb": round(inflated / 2**20)}
    started = time.perf_counter()
    try:
        parse_document(bomb)
        result["refused"] = False
    except DocumentError as error:
        result.update(refused=True, reason=str(error))
    result["in_process_refusal_s"] = round(time.perf_counter() - started, 4)
    with ParseWorker(ParseLimits()) as worker:
        warm = work / "warm.txt"
        warm.write_text("warm the reader process up", encoding="utf-8")
        worker.parse(warm)
        started = time.perf_counter()
        try:
            worker.parse(bomb)
        except DocumentError as error:
            result["reader_process_kind"] = error.kind
        result["reader_process_refusal_s"] = round(time.perf_counter() - started, 4)
    ingestion = Ingestion(make_home(work / "bomb"), [bomb])
    failed = wait_until(lambda: ingestion.stages().get(str(bomb.resolve()), ("", False))[0] == "failed",
                        ingestion, 600)
    ingestion.stop()
    result["kb_add_failed_at_s"] = None if failed is None else round(failed, 2)
    result["kb_add_peak_rss_mb"] = round(ingestion.peak_main / 2**20)
    return result


def _pipeline_side(folder: Path, source: Path, pool: Any, sides: dict[str, float]) -> list[str]:
    """Index ``source`` into a fresh knowledge base; returns the chunk texts it stored."""
    from app.core.config import Settings
    from app.core.kb.knowledge_base import KnowledgeBase
    from app.core.kb.progress import ProgressTracker

    with KnowledgeBase(folder, Settings({"kb.embedding_model": "all-MiniLM-L6-v2"}), pool) as kb:
        started = time.perf_counter()
        summary = kb.indexer().run([source], ProgressTracker(), threading.Event())
        sides["pipeline_s"] = time.perf_counter() - started
        sides["pipeline_embedding_chunks_per_second"] = summary.chunks_per_second
        connection = sqlite3.connect(kb.database_path)
        texts = [row[0] for row in connection.execute("SELECT text FROM chunks ORDER BY ordinal")]
        connection.close()
    return texts


def _raw_side(model: Any, texts: list[str], sides: dict[str, float]) -> None:
    started = time.perf_counter()
    model.encode(texts, batch_size=64)
    sides["raw_encode_s"] = time.perf_counter() - started


def measure_embed_ratio(work: Path, megabytes: float, rounds: int) -> dict[str, Any]:
    """``Indexer.run`` over a one-line file (model loaded beforehand: reader process, parse, chunk, FTS5, embed,
    chromadb) against one raw ``encode`` of exactly the chunks it stored, alternating which runs first."""
    from app.core.kb.knowledge_base import EmbedderPool

    pool = EmbedderPool(device="cpu")
    model = sentence_transformer(pool.get("all-MiniLM-L6-v2"))
    source = one_line_file(work / "slice.txt", megabytes)
    runs: list[dict[str, Any]] = []
    texts: list[str] = []
    for number in range(rounds):
        sides: dict[str, float] = {}
        folder = work / f"ratio-{number}"
        if number % 2 == 0 or not texts:
            texts = _pipeline_side(folder, source, pool, sides)
            _raw_side(model, texts, sides)
        else:  # the raw side first, over the chunks of the previous round (the same file cut the same way)
            _raw_side(model, texts, sides)
            texts = _pipeline_side(folder, source, pool, sides)
        runs.append({**{key: round(value, 2) for key, value in sides.items()}, "chunks": len(texts),
                     "ratio": round(sides["raw_encode_s"] / sides["pipeline_s"], 3)})
        log(f"embed ratio round {number}: {runs[-1]}")
    ratios = sorted(run["ratio"] for run in runs)
    return {"file_mb": megabytes, "rounds": runs, "median_ratio_raw_encode_over_pipeline": ratios[len(ratios) // 2],
            "load_average_after": load_average()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--only", default="big,folder,bomb,ratio")
    parser.add_argument("--mb", type=float, default=10.8)
    parser.add_argument("--embed-seconds", type=float, default=240.0)
    parser.add_argument("--full", action="store_true", help="wait until the big file is fully embedded")
    parser.add_argument("--work-dir", type=Path, default=None)
    parser.add_argument("--ratio-mb", type=float, default=0.15, help="ratio: size of the one-line file")
    parser.add_argument("--rounds", type=int, default=2, help="ratio: rounds (the order alternates)")
    arguments = parser.parse_args(argv)
    work = arguments.work_dir or Path(tempfile.mkdtemp(prefix="kb-staged-"))
    work.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"machine": machine_facts(), "machine_before": load_average()}
    chosen = [name.strip() for name in arguments.only.split(",") if name.strip()]
    embed_seconds = None if arguments.full else arguments.embed_seconds
    for name in chosen:
        log(f"measuring {name}")
        if name == "big":
            report["big_file"] = measure_big(work, arguments.mb, embed_seconds)
        elif name == "folder":
            report["folder"] = measure_folder(work, arguments.mb, 30.0)
        elif name == "bomb":
            report["docx_bomb"] = measure_bomb(work)
        elif name == "ratio":
            report["embed_ratio"] = measure_embed_ratio(work, arguments.ratio_mb, arguments.rounds)
    report["machine_after"] = load_average()
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
