"""MemoryVerdictView: the live one-line answer to "will this fit?" under the settings, with the planner's detail."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from app.ui.gauges.gauge_style import format_gib
from app.ui.i18n import follow_language, render
from app.ui.settings.verdict_planning import Verdict, format_tokens

VERDICT_COLORS = {"unknown": "#9e9e9e", "fits": "#43a047", "short": "#e53935"}
VERDICT_STYLE = (
    "QFrame#memoryVerdict {{ border: 1px solid palette(mid); border-left: 5px solid {color}; border-radius: 4px; }}"
)
BACKEND_NAMES = {"llamacpp": "llama.cpp", "vllm": "vLLM"}


class MemoryVerdictView(QFrame):
    """Shows a Verdict: "Fits: 410 MiB of 28.0 GiB free" or "Needs 31.0 GiB, 28.0 GiB free: lower …".

    It keeps what it was last asked to show, so a language switch writes it again (the planner's explanation
    and the core's reasons are Texts, rendered in the language shown).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryVerdict")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.headline = QLabel(self)
        self.headline.setObjectName("verdictHeadline")
        self.headline.setWordWrap(True)
        font = self.headline.font()
        font.setBold(True)
        self.headline.setFont(font)
        self.detail = QLabel(self)
        self.detail.setObjectName("verdictDetail")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(2)
        layout.addWidget(self.headline)
        layout.addWidget(self.detail)
        self.verdict: Verdict | None = None
        self.fits: bool | None = None
        self._show_again: Callable[[], None] = self.show_waiting
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        self.headline.setAccessibleName(self.tr("Memory verdict"))
        self.detail.setAccessibleName(self.tr("Memory plan details"))
        self._show_again()

    def show_waiting(self) -> None:
        """Before the first verdict (the probe or the planner is still running)."""
        self._show_again = self.show_waiting
        self._show(self.tr("Memory: working it out…"), "", None)

    def show_failure(self, reason: str) -> None:
        self._show_again = partial(self.show_failure, reason)
        self._show(self.tr("Memory: could not plan ({0})").format(render(reason)), "", False)

    def show_verdict(self, verdict: Verdict) -> None:
        self._show_again = partial(self.show_verdict, verdict)
        self.verdict = verdict
        plan = verdict.plan
        if verdict.model_path is None:
            self._show(self.tr("Memory: choose a model to see whether it fits."), "", None)
        elif verdict.problem is not None:
            self._show(self.tr("Memory: cannot plan this model."), verdict.problem, False)
        elif plan is None:
            self._show(self.tr("Memory: the remote server runs the model; nothing is loaded here."), "", None)
        elif plan.fits:
            headline = self.tr("Fits: {0} of {1} free").format(
                format_gib(plan.total_bytes), format_gib(plan.budget_bytes)
            )
            self._show(headline, plan.explanation, True)
        else:
            self._show(self._shortfall_headline(verdict), plan.explanation, False)

    def _shortfall_headline(self, verdict: Verdict) -> str:
        plan = verdict.plan
        assert plan is not None
        needs = self.tr("Needs {0}, {1} free").format(
            format_gib(plan.total_bytes), format_gib(plan.budget_bytes)
        )
        options = []
        if verdict.context_alternative is not None:
            options.append(self.tr("lower context to {0}").format(format_tokens(verdict.context_alternative)))
        if verdict.chats_alternative is not None:
            options.append(self.tr("parallel chats to {0}").format(verdict.chats_alternative))
        if options:
            return self.tr("{0}: {1}").format(needs, self.tr(" or ").join(options))
        if plan.recommended.fits:
            recommended = plan.recommended
            if recommended.parallel_chats == 1:
                return self.tr("{0}: try context {1} with one chat at a time and a {2} KV cache").format(
                    needs, format_tokens(recommended.context_length), recommended.kv_cache_dtype)
            return self.tr("{0}: try context {1} with {2} parallel chats and a {3} KV cache").format(
                needs, format_tokens(recommended.context_length), recommended.parallel_chats,
                recommended.kv_cache_dtype,
            )
        return self.tr("{0}: this model does not fit on this machine").format(needs)

    def _show(self, headline: str, detail: str, fits: bool | None) -> None:
        self.fits = fits
        self.headline.setText(headline)
        self.detail.setText(render(detail))
        self.detail.setVisible(bool(detail))
        state = "unknown" if fits is None else "fits" if fits else "short"
        self.setProperty("verdict", state)
        self.setStyleSheet(VERDICT_STYLE.format(color=VERDICT_COLORS[state]))
