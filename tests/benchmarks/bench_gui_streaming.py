"""Streaming into the real chat view, into a short and into a long conversation: the GUI event loop's stalls
and the GUI thread's busy share, against an idle window in the same run.

    .venv/bin/python -m tests.benchmarks.bench_gui_streaming [--rate 250] [--seconds 8] [--rounds 3] [--long 50]
        [--answer-chars 40000] [--answer-rate 800] [--only conversation|answer|open|model]
        [--model MODEL.gguf --model-tokens 24000 --model-context 32768]

A real main window (offscreen by default; ``--platform xcb`` under Xvfb) shows a stored conversation whose
answer is fed by a fake stream: a thread pushing Markdown token pieces (prose, lists, fenced code) at
``--rate`` tokens/s into an AnswerJob stand-in, drained by the chat view's frame timer as a real answer is.
The conversation is either short (just the new question) or long (``--long`` stored Markdown messages
before it, as a long chat has). While it runs, a 5 ms PreciseTimer heartbeat on the GUI thread records the
gaps between its ticks (a stall is a long gap), and ``time.thread_time()`` on the GUI thread over the wall
time gives the GUI thread's busy share. Idle, short and long phases alternate round by round (so load on
the machine hits all three), each lasting ``--seconds``. Prints one JSON document with the long/short
ratios; targets: no stall over 50 ms while streaming, and the busy share flat as the conversation grows
(long/short at most ``FLAT_RATIO``).

The long-answer case streams ONE long answer of ``--answer-chars`` at ``--answer-rate`` tokens/s, of two kinds:
``markdown`` (prose, lists and code blocks between blank lines, with stretches of a few thousand characters
without one) and ``one_paragraph`` (no blank line at all, mixed scripts and Markdown marks: what a small model
often writes). It compares the GUI thread's busy share and its CPU time per drained frame while the last
quarter of the answer streams with the first quarter (``late_over_early``; flat: at most ``FLAT_RATIO``).

The open case switches to the ``--long``-message conversation (from a short one) round by round and times,
from the switch: the newest message on show, every message built, and the longest gap of the heartbeat in
between (a stall: the window drew nothing meanwhile), with the GUI thread's CPU time; ``stall_over_build`` is
the longest stall over the whole build (1.0: built in one go).

The model case (``--model``, any GGUF; ``--only model``) streams one real answer of ``--model-tokens`` tokens
(sampled, end of text ignored) twice in one run: headless (the engine drained 40 times a second, as the
window's frames drain it) and into the window; ``window_over_headless`` is the ratio of their seconds (1.0:
the window costs the engine nothing), with each one's characters per second in the first and last quarter.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.benchmarks.bench_support import figure

HEARTBEAT_MS = 5
STALL_TARGET_MS = 50.0
FLAT_RATIO = 1.25
"""The GUI thread's busy share streaming into the long conversation, over the short one, stays below this."""


def _phase(app: Any, seconds: float) -> dict[str, float]:
    """Run the GUI event loop for ``seconds`` with a heartbeat; gaps and the GUI thread's CPU time."""
    from PySide6.QtCore import QEventLoop, Qt, QTimer

    ticks: list[float] = []
    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(HEARTBEAT_MS)
    heartbeat.timeout.connect(lambda: ticks.append(time.perf_counter()))
    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    wall_start, cpu_start = time.perf_counter(), time.thread_time()
    ticks.append(wall_start)
    heartbeat.start()
    loop.exec()
    heartbeat.stop()
    wall, cpu = time.perf_counter() - wall_start, time.thread_time() - cpu_start
    gaps_ms = sorted((later - earlier) * 1000 for earlier, later in itertools.pairwise(ticks))
    return {
        "longest_stall_ms": gaps_ms[-1] if gaps_ms else float("nan"),
        "p99_gap_ms": gaps_ms[int(len(gaps_ms) * 0.99) - 1] if gaps_ms else float("nan"),
        "gaps_over_50ms": float(sum(gap > STALL_TARGET_MS for gap in gaps_ms)),
        "gui_thread_cpu_share": cpu / wall,
        "heartbeats": float(len(gaps_ms)),
    }


def _open_window(home: Path, settings: dict[str, Any] | None = None) -> tuple[Any, Any, Any]:
    """A real main window with the chat half over a fresh home (fake machine facts: no probing work)."""
    from app.main import build_context
    from app.ui.main_window import MainWindow
    from app.ui.theme import apply_theme
    from tests.ui.conftest import fake_machine, make_services

    context = build_context(str(home), verbose=False)
    services = make_services(context, fake_machine())
    if settings:
        services.live_settings.replace(context.settings.with_changes(settings))
    services = services.with_chat(context.paths)
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, "light")
    window = MainWindow(context, services, first_run_guide=False)
    window.resize(1180, 760)
    window.show()
    return window, services, context


def _settle(app: Any, view: Any) -> None:
    """Run the event loop until the store calls the view and sidebar made have come back (they run on a worker)."""
    calls = getattr(view, "calls", None)  # None: a window that read the store on the GUI thread (before/after runs)
    deadline = time.monotonic() + 30
    while calls is not None and calls.busy() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.005)


def _conversation(store: Any, earlier_messages: int) -> str:
    """A new conversation holding ``earlier_messages`` finished messages (questions and Markdown answers)."""
    from tests.ui.chat_support import markdown_tokens

    conversation = store.create_conversation("Long chat" if earlier_messages else "Short chat")
    parent = None
    answer_text = "".join(markdown_tokens(400))  # about 1,900 characters: prose, a list, fenced code
    for index in range(earlier_messages):
        if index % 2 == 0:
            message = store.add_message(conversation.id, "user", f"Question {index // 2 + 1}: and then?", parent)
        else:
            message = store.add_message(conversation.id, "assistant", answer_text, parent, finished=False)
            store.finish_message(message.id, text=answer_text, finish_reason="stop")
        parent = message.id
    return str(conversation.id)


def _stream_once(app: Any, window: Any, store: Any, rate: float, seconds: float,
                 earlier_messages: int) -> dict[str, float]:
    """One streaming phase: a new question after ``earlier_messages`` stored ones and a fake answer at ``rate``
    tokens/s for ``seconds``."""
    from tests.ui.chat_support import FakeAnswer, markdown_tokens

    view = window.chat_view
    conversation = store.conversation(_conversation(store, earlier_messages))
    question = store.add_message(conversation.id, "user", "Explain the plan, with code.",
                                 conversation.current_leaf_id)
    answer = store.add_message(conversation.id, "assistant", "", question.id, finished=False)
    window.sidebar.refresh(select=conversation.id)
    _settle(app, view)
    _phase(app, 0.5)  # the conversation is on show and laid out before the stream starts
    tokens = markdown_tokens(int(rate * seconds))
    def save(text: str) -> None:
        store.finish_message(answer.id, text=text, finish_reason="stop")

    fake = FakeAnswer(tokens, rate, message_id=answer.id, save_result=save)
    received: list[int] = []

    def count(_conversation: str, _message: str, piece: str) -> None:
        received.append(len(piece))

    view.running.text_arrived.connect(count)
    frames_before = view.running.frames
    view.running.add(conversation.id, fake.start())
    view.reload()
    _settle(app, view)
    widget = view.messages.widget_for(answer.id)
    renders_before = widget.body.renders
    measured = _phase(app, seconds)
    fake.join(seconds)
    achieved = fake.pushes / max(1e-9, fake.finished_at - fake.started_at)
    measured.update({
        "tokens": float(fake.pushes),
        "achieved_tokens_per_s": achieved,
        "frames_drained": float(view.running.frames - frames_before),
        "markdown_renders": float(widget.body.renders - renders_before),
        "answer_chars": float(sum(received)),
        "signals_per_token": len(received) / max(1, fake.pushes),
        "messages_on_show": float(len(view.messages.ordered_widgets())),
    })
    _phase(app, 0.2)  # let the frame timer report the end (the view then shows the saved answer)
    view.running.text_arrived.disconnect(count)
    return measured


ANSWER_KINDS = ("markdown", "one_paragraph")
_SMALL_MODEL_WORDS = ("engine", "模型", "**bold**", "`code`", "文件", "hello", "系统", "*x*", "document", "因为", "the")


def _long_answer_text(chars: int, kind: str) -> str:
    """``markdown``: sections (prose, lists, code) between stretches with no blank line (a paragraph of mixed
    scripts, a code block, a list; a few thousand characters each). ``one_paragraph``: no blank line at all."""
    from tests.ui.chat_support import markdown_tokens

    words = _SMALL_MODEL_WORDS
    if kind == "one_paragraph":
        return " ".join(words[number % len(words)] for number in range(chars // 4))[:chars]
    paragraph = " ".join(words[number % len(words)] for number in range(900)) + "\n\n"
    code = "```python\n" + "".join(f"def step_{n}(value):\n    return value * {n}  # step {n}\n"
                                   for n in range(60)) + "```\n\n"
    listed = "".join(f"{n}. Item {n} of the list, with *emphasis* and a few more words\n" for n in range(1, 60))
    sections = ["".join(markdown_tokens(300)) + "\n\n", paragraph, code, listed + "\n"]
    text = ""
    for number in itertools.count():
        if len(text) >= chars:
            return text[:chars]
        text += sections[number % len(sections)]
    raise AssertionError("unreachable")


def _window_figures(samples: list[tuple[float, float, float, int]], low: float, high: float) -> dict[str, float]:
    """Busy share, CPU per drained frame and longest gap between the samples whose answer length lies in
    [low, high); a sample is (wall, GUI thread CPU, characters shown, frames drained)."""
    inside = [sample for sample in samples if low <= sample[2] < high]
    first, last = inside[0], inside[-1]
    wall, cpu, frames = last[0] - first[0], last[1] - first[1], last[3] - first[3]
    gaps = [(later[0] - earlier[0]) * 1000 for earlier, later in itertools.pairwise(inside)]
    return {
        "gui_thread_cpu_share": cpu / max(1e-9, wall),
        "cpu_ms_per_frame": cpu * 1000 / max(1, frames),
        "longest_stall_ms": max(gaps, default=float("nan")),
        "frames": float(frames),
    }


def _long_answer_once(app: Any, window: Any, store: Any, rate: float, chars: int, kind: str) -> dict[str, Any]:
    """One long answer streamed at ``rate`` tokens/s into a new conversation; early and late quarters."""
    import re

    from PySide6.QtCore import QEventLoop, Qt, QTimer

    from tests.ui.chat_support import FakeAnswer

    view = window.chat_view
    conversation = store.create_conversation("Long answer")
    question = store.add_message(conversation.id, "user", "Explain everything, with code.", None)
    answer = store.add_message(conversation.id, "assistant", "", question.id, finished=False)
    window.sidebar.refresh(select=conversation.id)
    _settle(app, view)
    _phase(app, 0.5)
    tokens = re.findall(r"\s*\S+|\s+", _long_answer_text(chars, kind))
    fake = FakeAnswer(tokens, rate, message_id=answer.id)
    shown = [0]

    def count(_conversation: str, _message: str, piece: str) -> None:
        shown[0] += len(piece)

    view.running.text_arrived.connect(count)
    view.running.add(conversation.id, fake.start())
    view.reload()
    _settle(app, view)
    samples: list[tuple[float, float, float, int]] = []
    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(HEARTBEAT_MS)
    heartbeat.timeout.connect(lambda: samples.append(
        (time.perf_counter(), time.thread_time(), float(shown[0]), view.running.frames)))
    loop = QEventLoop()
    heartbeat.timeout.connect(lambda: loop.quit() if fake.done else None)
    heartbeat.start()
    loop.exec()
    heartbeat.stop()
    view.running.text_arrived.disconnect(count)
    total = float(shown[0])
    early = _window_figures(samples, 0.0, total / 4)
    late = _window_figures(samples, total * 3 / 4, total + 1)
    widget = view.messages.widget_for(answer.id)
    _phase(app, 0.3)  # the end is reported and the answer shown as stored
    return {
        "early": early,
        "late": late,
        "answer_chars": total,
        "tokens": float(fake.pushes),
        "achieved_tokens_per_s": fake.pushes / max(1e-9, fake.finished_at - fake.started_at),
        "markdown_parts": float(len(widget.body.parts)) if widget is not None else float("nan"),
    }


def measure_long_answer(rate: float, chars: int, rounds: int) -> dict[str, Any]:
    """The long-answer case, both kinds: the late/early ratios of busy share and CPU per frame."""
    from PySide6.QtWidgets import QApplication

    from app.ui.pyside_workarounds import protect_none_from_pyside

    protect_none_from_pyside()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    runs: dict[str, list[dict[str, Any]]] = {kind: [] for kind in ANSWER_KINDS}
    with tempfile.TemporaryDirectory(prefix="unidesk-bench-answer-") as home:
        window, services, _context = _open_window(Path(home))
        _phase(app, 1.0)
        for round_number, kind in itertools.product(range(rounds + 1), ANSWER_KINDS):
            run = _long_answer_once(app, window, services.chat.store, rate, chars, kind)
            print(f"long answer ({kind}) round {round_number}: busy {run['early']['gui_thread_cpu_share']:.1%} -> "
                  f"{run['late']['gui_thread_cpu_share']:.1%}, per frame {run['early']['cpu_ms_per_frame']:.2f} -> "
                  f"{run['late']['cpu_ms_per_frame']:.2f} ms", file=sys.stderr)
            if round_number:
                runs[kind].append(run)  # round 0 warms up
        window.close()
        services.chat.close()
    result: dict[str, Any] = {"answer_rate_tokens_per_s": rate, "target": f"late/early < {FLAT_RATIO}"}
    for kind, kind_runs in runs.items():
        result[kind] = _answer_summary(kind_runs)
    result["passed"] = all(result[kind]["passed"] for kind in ANSWER_KINDS)
    return result


def _answer_summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    def values(part: str, key: str) -> list[float]:
        return [run[part][key] for run in runs]

    def ratio(key: str) -> float:
        return round(float(figure(values("late", key), 4)["median"]) / max(1e-9, float(
            figure(values("early", key), 4)["median"])), 3)

    busy, per_frame = ratio("gui_thread_cpu_share"), ratio("cpu_ms_per_frame")
    return {
        "answer_chars": figure([run["answer_chars"] for run in runs], 0),
        "achieved_tokens_per_s": figure([run["achieved_tokens_per_s"] for run in runs], 1),
        "markdown_parts_at_end": figure([run["markdown_parts"] for run in runs], 0),
        "early_quarter": {key: figure(values("early", key), 3) for key in runs[0]["early"]},
        "late_quarter": {key: figure(values("late", key), 3) for key in runs[0]["late"]},
        "late_over_early": {"gui_thread_busy_share": busy, "cpu_ms_per_frame": per_frame},
        "passed": busy < FLAT_RATIO and per_frame < FLAT_RATIO,
    }


def _open_once(app: Any, window: Any, long_id: str, other_id: str, messages: int) -> dict[str, float]:
    """Show the short conversation, then switch to the long one; times from the switch."""
    from PySide6.QtCore import QEventLoop, Qt, QTimer

    view = window.chat_view
    window.sidebar.select(other_id)
    _settle(app, view)
    _phase(app, 0.3)  # the long conversation's widgets are gone
    marks: dict[str, float] = {}
    ticks: list[float] = []
    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(HEARTBEAT_MS)
    loop = QEventLoop()

    def tick() -> None:
        now = time.perf_counter()
        ticks.append(now)
        shown = view.messages.ordered_widgets()
        if shown and shown[-1].entry.message.conversation_id == long_id:
            marks.setdefault("newest", now)
            if len(shown) == messages and not getattr(view.messages, "building", False):
                marks["all"] = now
                loop.quit()

    heartbeat.timeout.connect(tick)
    QTimer.singleShot(60_000, loop.quit)
    start, cpu_start = time.perf_counter(), time.thread_time()
    ticks.append(start)
    heartbeat.start()
    window.sidebar.select(long_id)
    loop.exec()
    heartbeat.stop()
    cpu = time.thread_time() - cpu_start
    stall = max((later - earlier for earlier, later in itertools.pairwise(ticks)), default=float("nan"))
    built = marks.get("all", float("nan")) - start
    return {
        "newest_shown_ms": (marks.get("newest", float("nan")) - start) * 1000,
        "all_built_ms": built * 1000,
        "longest_stall_ms": stall * 1000,
        "gui_thread_cpu_ms": cpu * 1000,
        "stall_over_build": stall / max(1e-9, built),
    }


def measure_open(messages: int, rounds: int) -> dict[str, Any]:
    """The open case: switching to a ``messages``-long conversation, ``rounds`` times after a warm-up."""
    from PySide6.QtWidgets import QApplication

    from app.ui.pyside_workarounds import protect_none_from_pyside

    protect_none_from_pyside()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    runs: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="unidesk-bench-open-") as home:
        window, services, _context = _open_window(Path(home))
        store = services.chat.store
        long_id, other_id = _conversation(store, messages), _conversation(store, 2)
        window.sidebar.refresh(select=other_id)
        _settle(app, window.chat_view)
        _phase(app, 1.0)
        for round_number in range(rounds + 1):
            run = _open_once(app, window, long_id, other_id, messages)
            print(f"open round {round_number}: newest {run['newest_shown_ms']:.0f} ms, all "
                  f"{run['all_built_ms']:.0f} ms, longest stall {run['longest_stall_ms']:.0f} ms", file=sys.stderr)
            if round_number:
                runs.append(run)
        window.close()
        services.chat.close()
    return {
        "messages": messages,
        **{key: figure([run[key] for run in runs], 3) for key in runs[0]},
    }


def _rates(marks: list[tuple[float, int]]) -> dict[str, float]:
    """Seconds, characters, and characters per second over the first and the last quarter of the characters."""
    total = sum(size for _at, size in marks)
    start, end = marks[0][0], marks[-1][0]
    so_far, quarter, three_quarters = 0, None, None
    for at, size in marks:
        so_far += size
        if quarter is None and so_far >= total / 4:
            quarter = at
        if three_quarters is None and so_far >= total * 3 / 4:
            three_quarters = at
    assert quarter is not None and three_quarters is not None
    return {
        "seconds": end - start,
        "chars": float(total),
        "first_quarter_chars_per_s": total / 4 / max(1e-9, quarter - start),
        "last_quarter_chars_per_s": total / 4 / max(1e-9, end - three_quarters),
    }


MODEL_THREADS = 1
"""Engine threads for the model case: one, so a busy machine's other work does not stall llama.cpp's spinning
threads differently in the two runs."""


def _model_settings(context_tokens: int) -> dict[str, Any]:
    return {"engine.parallel_chats": 1, "engine.context_length": context_tokens, "engine.warmup": False,
            "engine.threads": MODEL_THREADS}


def _headless(model: Path, tokens: int, context_tokens: int) -> dict[str, float]:
    """The engine alone, drained 40 times a second."""
    from app.core.engines.requests import ChatRequest, SamplingParams
    from app.main import build_context
    from tests.ui.conftest import fake_machine, make_services

    with tempfile.TemporaryDirectory(prefix="unidesk-bench-headless-") as home:
        context = build_context(home, verbose=False)
        services = make_services(context, fake_machine())
        services.live_settings.replace(context.settings.with_changes(_model_settings(context_tokens)))
        manager = services.engine_manager
        manager.load(model)
        sampling = SamplingParams(temperature=0.8, seed=1, max_tokens=tokens, ignore_eos=True)
        stream = manager.submit(ChatRequest.single_prompt("Hello there", sampling))
        marks: list[tuple[float, int]] = []
        while True:
            ended = stream.wait(1 / 40)
            piece = stream.drain()
            if piece:
                marks.append((time.perf_counter(), len(piece)))
            if ended and not piece:
                break
        manager.unload()
    return _rates(marks)


def _in_window(model: Path, tokens: int, context_tokens: int) -> dict[str, float]:
    """The same answer asked in the window; its text as the view receives it, and the GUI thread's share."""
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from app.core.engines.manager import ManagerState
    from app.core.engines.requests import SamplingParams
    from app.ui.pyside_workarounds import protect_none_from_pyside

    protect_none_from_pyside()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert app is not None
    with tempfile.TemporaryDirectory(prefix="unidesk-bench-model-") as home:
        window, services, _context = _open_window(Path(home), _model_settings(context_tokens))
        view = window.chat_view
        assert window.load_model(model)
        loop = QEventLoop()
        poll = QTimer()
        poll.setInterval(20)
        poll.timeout.connect(lambda: loop.quit() if window.model_status.state is not ManagerState.LOADING else None)
        poll.start()
        loop.exec()
        if window.model_status.state is not ManagerState.READY:
            raise SystemExit(f"{model} did not load: {window.model_status.text.text()}")
        view.sampling = SamplingParams(temperature=0.8, seed=1, max_tokens=tokens, ignore_eos=True)
        marks: list[tuple[float, int]] = []
        view.running.text_arrived.connect(lambda _c, _m, piece: marks.append((time.perf_counter(), len(piece))))
        started = [False]

        def check() -> None:
            shown = view.conversation_id
            running = shown is not None and view.running.is_running(shown)
            started[0] = started[0] or running
            if started[0] and not running:
                loop.quit()

        poll.timeout.disconnect()
        poll.timeout.connect(check)
        wall, cpu = time.perf_counter(), time.thread_time()
        assert view.send("Hello there")
        loop.exec()
        poll.stop()
        figures = _rates(marks)
        figures["gui_thread_cpu_share"] = (time.thread_time() - cpu) / (time.perf_counter() - wall)
        window.close()
        services.chat.close()
        services.engine_manager.unload()
    return figures


def measure_model(model: Path, tokens: int, context_tokens: int) -> dict[str, Any]:
    """The model case: one real answer headless and in the window, in one run."""
    if not model.is_file():
        raise SystemExit(f"--model {model}: no such file; give the path of a .gguf model")
    headless = _headless(model, tokens, context_tokens)
    windowed = _in_window(model, tokens, context_tokens)
    return {
        "model": model.name,
        "tokens": tokens,
        "headless": {key: round(value, 3) for key, value in headless.items()},
        "window": {key: round(value, 3) for key, value in windowed.items()},
        "window_over_headless": round(windowed["seconds"] / max(1e-9, headless["seconds"]), 3),
    }


def measure(rate: float, seconds: float, rounds: int, long_messages: int) -> dict[str, Any]:
    from PySide6.QtWidgets import QApplication

    from app.ui.pyside_workarounds import protect_none_from_pyside

    protect_none_from_pyside()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    phases: dict[str, list[dict[str, float]]] = {"idle": [], "short": [], "long": []}
    with tempfile.TemporaryDirectory(prefix="unidesk-bench-stream-") as home:
        window, services, _context = _open_window(Path(home))
        store = services.chat.store
        _phase(app, 1.0)  # settle: first paint, probe, first gauge readings
        for round_number in range(rounds + 1):
            measured = {"idle": _phase(app, seconds)}
            order = ("short", "long") if round_number % 2 == 0 else ("long", "short")
            for kind in order:  # alternating, so a drift in the machine's load hits both alike
                measured[kind] = _stream_once(app, window, store, rate, seconds,
                                              long_messages if kind == "long" else 0)
            print(f"round {round_number}: " + "; ".join(
                f"{kind} stall {measured[kind]['longest_stall_ms']:.1f} ms p99 {measured[kind]['p99_gap_ms']:.1f} ms "
                f"busy {measured[kind]['gui_thread_cpu_share']:.1%}" for kind in ("idle", "short", "long")),
                file=sys.stderr)
            if round_number == 0:
                continue  # warm-up round
            for kind, phase in measured.items():
                phases[kind].append(phase)
        window.close()
        services.chat.close()

    def summary(runs: list[dict[str, float]]) -> dict[str, Any]:
        result = {key: figure([run[key] for run in runs], 3) for key in runs[0]}
        result["longest_stall_ms"]["max"] = round(max(run["longest_stall_ms"] for run in runs), 3)
        return result

    def median_of(kind: str, key: str) -> float:
        return float(figure([run[key] for run in phases[kind]], 4)["median"])

    def ratio(key: str) -> float:
        return round(median_of("long", key) / max(1e-9, median_of("short", key)), 3)

    worst = max(run["longest_stall_ms"] for kind in ("short", "long") for run in phases[kind])
    busy_ratio = ratio("gui_thread_cpu_share")
    return {
        "benchmark": "gui_streaming",
        "platform": os.environ.get("QT_QPA_PLATFORM", ""),
        "rate_tokens_per_s": rate,
        "seconds_per_phase": seconds,
        "rounds": rounds,
        "heartbeat_ms": HEARTBEAT_MS,
        "long_conversation_messages": long_messages,
        "idle": summary(phases["idle"]),
        "streaming_short": summary(phases["short"]),
        "streaming_long": summary(phases["long"]),
        "long_over_short": {
            "gui_thread_busy_share": busy_ratio,
            "p99_gap_ms": ratio("p99_gap_ms"),
            "longest_stall_ms": ratio("longest_stall_ms"),
        },
        "streaming_minus_idle_busy_share": {
            kind: round(median_of(kind, "gui_thread_cpu_share") - median_of("idle", "gui_thread_cpu_share"), 4)
            for kind in ("short", "long")
        },
        "target": f"longest stall while streaming < {STALL_TARGET_MS:.0f} ms; busy share long/short < {FLAT_RATIO}",
        "passed": worst < STALL_TARGET_MS and busy_ratio < FLAT_RATIO,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=250.0, help="tokens per second of the fake stream")
    parser.add_argument("--seconds", type=float, default=8.0, help="length of each idle and streaming phase")
    parser.add_argument("--rounds", type=int, default=3, help="measured rounds (plus one warm-up round)")
    parser.add_argument("--long", type=int, default=50, help="stored messages before the question in the long case")
    parser.add_argument("--answer-chars", type=int, default=40_000, help="length of the long-answer case")
    parser.add_argument("--answer-rate", type=float, default=800.0, help="tokens per second of the long answer")
    parser.add_argument("--only", choices=("conversation", "answer", "open", "model"), help="run one case only")
    parser.add_argument("--model", type=Path, help="a GGUF model for the model case (left out: no model case)")
    parser.add_argument("--model-tokens", type=int, default=24_000, help="length of the model's answer")
    parser.add_argument("--model-context", type=int, default=32_768, help="context length to load it with")
    parser.add_argument("--platform", default="offscreen", help="Qt platform plugin (default offscreen)")
    args = parser.parse_args()
    os.environ["QT_QPA_PLATFORM"] = args.platform
    result: dict[str, Any] = {}
    if args.only in (None, "conversation"):
        result = measure(args.rate, args.seconds, args.rounds, args.long)
    if args.only in (None, "answer"):
        result["long_answer"] = measure_long_answer(args.answer_rate, args.answer_chars, args.rounds)
    if args.only in (None, "open"):
        result["open_long_conversation"] = measure_open(args.long, args.rounds)
    if args.model is not None and args.only in (None, "model"):
        result["model"] = measure_model(args.model, args.model_tokens, args.model_context)
    result.setdefault("benchmark", "gui_streaming")
    print(json.dumps(result, indent=2))
    return 0 if all(part.get("passed", True) for part in (result, result.get("long_answer", {}))) else 1


if __name__ == "__main__":
    sys.exit(main())
