"""The llama.cpp engine thread: continuous batching of N chats over one context, one decode per step."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass
from typing import Any

from app.core.engines.backends.llamacpp_batch import LogitRows, NativeBatch, greedy_tokens
from app.core.engines.backends.llamacpp_chains import ParallelChains, idle_cores
from app.core.engines.backends.llamacpp_graph_sampling import GraphSamplers
from app.core.engines.backends.llamacpp_native import NativeModel
from app.core.engines.backends.llamacpp_requests import ActiveRequest, PendingRequest, unstarted_metrics
from app.core.engines.backends.llamacpp_sampling import SamplerChain
from app.core.engines.backends.llamacpp_slots import SequenceSlot, SlotTable
from app.core.engines.backends.llamacpp_stats import EngineTotals, ThroughputWindow
from app.core.engines.backends.llamacpp_tokens import NativeTokenizer
from app.core.engines.backends.llamacpp_topk import TopKSampling, sample_top_k
from app.core.engines.base import EngineDeadError, EngineError
from app.core.engines.load_texts import llamacpp_stopped, load_again, said
from app.core.engines.metrics import EngineMetrics, FinishReason, RequestMetrics
from app.core.engines.stream import RequestStream
from app.core.util.translatable import QT_TRANSLATE_NOOP

LOGGER = logging.getLogger(__name__)
PUBLISH_INTERVAL_S = 0.25
"""How often running requests' metrics and the engine snapshot are refreshed while decoding."""
WAKE_INTERVAL_S = 1 / 60
"""How often threads iterating a running request's stream are woken for new text (a frame)."""


@dataclass(frozen=True)
class _Cancel:
    request_id: str


@dataclass(frozen=True)
class _Call:
    function: Callable[[], Any]
    future: Future[Any]


class _Stop:
    pass


class BatchScheduler:
    """Owns the context on the engine thread; other threads talk to it only through its inbox.

    Each step batches the next token of every decoding chat plus prefill chunks of chats
    that just got a slot (up to ``n_batch`` tokens), runs one ``llama_decode`` and samples
    every chat that has logits: greedy chats together (one argmax over their logit rows),
    top-k and top-p chats together (numpy, ``llamacpp_topk``), the others with their own llama.cpp
    sampler chain. Finished chats free their slot at once; waiting chats are admitted between steps.
    """

    def __init__(self, native: NativeModel, tokenizer: NativeTokenizer, context_limit: int, reuse: bool) -> None:
        self.native = native
        self.tokenizer = tokenizer
        self.context_limit = context_limit
        self._reuse = reuse
        self._library = native.library
        self._batch = NativeBatch(self._library, native.n_batch)
        self._logits = LogitRows(self._library, native.context, native.n_vocab)
        threads = int(self._library.llama_n_threads(native.context))
        self._chains = ParallelChains(self._library, native.n_vocab, idle_cores(threads, native.offloaded))
        self._text_during_decode = native.offloaded
        self._graph = GraphSamplers(self._library, native.context) if native.graph_sampling else None
        self._unshown: list[ActiveRequest] = []
        self._slots = SlotTable(native.n_seq_max)
        self._inbox: deque[PendingRequest | _Cancel | _Call | _Stop] = deque()
        self._wakeup = threading.Condition()
        self._waiting: deque[PendingRequest] = deque()
        self._decoding: list[ActiveRequest] = []
        self._prefilling: list[ActiveRequest] = []
        self._ended: list[tuple[RequestStream, FinishReason, RequestMetrics, BaseException | None]] = []
        self._stopping = False
        self.alive = True
        self._window = ThroughputWindow()
        self._totals = EngineTotals()
        self._next_publish = 0.0
        self._next_wake = 0.0
        self._snapshot = self._build_snapshot(time.perf_counter(), kv_cells_used=0)

    # ---- any thread ----------------------------------------------------------------------
    def _post(self, item: PendingRequest | _Cancel | _Call | _Stop) -> None:
        with self._wakeup:
            self._inbox.append(item)
            self._wakeup.notify()

    def submit(self, pending: PendingRequest) -> None:
        self._post(pending)

    def cancel(self, request_id: str) -> None:
        self._post(_Cancel(request_id))

    def stop(self) -> None:
        self._post(_Stop())

    def call(self, function: Callable[[], Any], timeout: float | None = None) -> Any:
        """Run ``function`` on the engine thread between steps and return its result."""
        if not self.alive:
            raise EngineDeadError(llamacpp_stopped(), load_again())
        future: Future[Any] = Future()
        self._post(_Call(function, future))
        try:
            return future.result(timeout)
        except CancelledError:
            raise EngineDeadError(llamacpp_stopped(), load_again()) from None

    @property
    def graph_samplers(self) -> GraphSamplers | None:
        """The chains sampling inside llama.cpp's graph (None when chats are sampled on the host)."""
        return self._graph

    def snapshot(self) -> EngineMetrics:
        """The latest published metrics (refreshed a few times a second while busy)."""
        return self._snapshot

    # ---- engine thread ---------------------------------------------------------------------
    def run(self) -> None:
        """The engine thread's loop; returns after stop(), having freed every native object."""
        try:
            while self._take_inbox():
                if self._decoding or self._prefilling:
                    self._step()
        except BaseException as error:
            LOGGER.exception("The llama.cpp engine thread failed")
            self.alive = False
            stopped = said(QT_TRANSLATE_NOOP("EngineLoad", "The llama.cpp engine stopped: {0}"), str(error))
            dead = EngineDeadError(stopped, load_again())
            self._end_everything("error", dead)
        finally:
            self.alive = False
            self._end_everything("cancelled", None)
            self._chains.close()
            if self._graph is not None:
                self._graph.close()
            self.tokenizer.close()
            self.native.free()

    def _take_inbox(self) -> bool:
        """Handle queued commands (blocking while there is nothing to do); False once stopped."""
        if self._inbox or not (self._decoding or self._prefilling):
            with self._wakeup:
                while not self._inbox and not (self._decoding or self._prefilling):
                    self._publish(time.perf_counter())
                    self._wakeup.wait()
                items = list(self._inbox)
                self._inbox.clear()
            for item in items:
                self._handle(item)
        if self._waiting and not self._stopping:
            self._admit(time.perf_counter())
        return not self._stopping

    def _handle(self, item: PendingRequest | _Cancel | _Call | _Stop) -> None:
        if isinstance(item, PendingRequest):
            self._waiting.append(item)
            self._next_publish = 0.0
        elif isinstance(item, _Cancel):
            self._cancel(item.request_id)
        elif isinstance(item, _Call):
            if item.future.set_running_or_notify_cancel():
                try:
                    item.future.set_result(item.function())
                except Exception as error:
                    item.future.set_exception(error)
        else:
            self._stopping = True

    def _cancel(self, request_id: str) -> None:
        now = time.perf_counter()
        for pending in self._waiting:
            if pending.request.request_id == request_id:
                self._waiting.remove(pending)
                pending.stream.finish("cancelled", unstarted_metrics(pending, now, "cancelled"))
                return
        for active in (*self._decoding, *self._prefilling):
            if active.request_id == request_id:
                self._finish(active, "cancelled", now)
                self._settle()
                return

    def _admit(self, now: float) -> None:
        """Give idle slots to waiting requests, in arrival order."""
        library = self._library
        admitted = False
        while self._waiting:
            pending = self._waiting[0]
            choice = self._slots.acquire(pending.request.conversation_id, pending.prompt_tokens, self._reuse)
            if choice is None:
                break
            self._waiting.popleft()
            slot = self._beside_the_others(choice.slot)
            library.llama_memory_seq_rm(self.native.memory, slot.seq_id, choice.reused_tokens, -1)
            del slot.tokens[choice.reused_tokens :]
            sampler = SamplerChain(library, pending.request.sampling, self.native.n_vocab)
            sampler.accept_prompt(pending.prompt_tokens)
            active = ActiveRequest(pending, slot, choice.reused_tokens, sampler, now)
            if self._graph is not None:
                active.in_graph = self._graph.attach(slot.seq_id, pending.request.sampling)
            self._prefilling.append(active)
            self._totals.prompt_tokens += len(active.prompt)
            self._totals.reused_prompt_tokens += choice.reused_tokens
            admitted = True
        if admitted:
            self._publish(now)

    def _beside_the_others(self, slot: SequenceSlot) -> SequenceSlot:
        """The slot the admitted request runs in: ``slot``, or, where its id would split the running
        chats' step in two (one KV stream per chat), a free slot beside them, ``slot``'s KV copied there
        first (the whole stream, at the next decode: on a GPU a fraction of a millisecond, on a CPU tens
        of milliseconds for a long context, against a whole extra pass over the weights every step).
        """
        if not self.native.stream_per_sequence:
            return slot
        target = self._slots.neighbour_for(slot)
        if target is None:
            return slot
        self._library.llama_memory_seq_cp(self.native.memory, slot.seq_id, target.seq_id, -1, -1)
        self._slots.move(slot, target)
        self._totals.slot_moves += 1
        return target

    def _step(self) -> None:
        """One llama_decode over every running chat; then sample and stream their tokens.

        On a GPU ``llama_decode`` returns once the step is queued, and the text of the tokens fed
        in this step is produced while the GPU computes (reading the logits waits for it). A chat
        that reaches a stop string there has had that token decoded (the KV holds it; the chat's
        sampled row is ignored). On a CPU the decode computes in the call, so the text comes first
        and such a chat is not decoded at all.
        """
        started = time.perf_counter()
        overlap = self._text_during_decode
        if not overlap and self._unshown and self._show_text(started):
            self._settle()
            if not (self._decoding or self._prefilling):
                return
        batch = self._batch
        decoding = self._decoding
        count = len(decoding)
        outputs: list[tuple[int, ActiveRequest]] = list(enumerate(decoding))
        if count:
            next_tokens = [active.next_token for active in decoding]
            batch.tokens[:count] = next_tokens
            batch.positions[:count] = [len(active.slot.tokens) for active in decoding]
            batch.seq_ids[:count] = [active.seq_id for active in decoding]
            batch.wants_logits[:count] = 1
            for active, token in zip(decoding, next_tokens, strict=True):
                active.slot.tokens.append(token)
        decoded = count
        count = self._add_prefill_chunks(count, outputs)
        batch.size = count
        result = self._library.llama_decode(self.native.context, batch.struct)
        if result != 0:
            self._decode_failed(result, outputs)
            return
        stopped = overlap and bool(self._unshown) and self._show_text(started)
        self._sample(outputs, stopped)
        ended = time.perf_counter()
        self._window.record(started, ended, decoded, count - decoded)
        if ended >= self._next_publish:
            self._publish(ended)

    def _add_prefill_chunks(self, count: int, outputs: list[tuple[int, ActiveRequest]]) -> int:
        batch = self._batch
        budget = self.native.n_batch - count
        for active in self._prefilling:
            if budget <= 0:
                break
            start = active.prefill_position
            chunk = active.prompt[start : start + budget]
            active.prefill_position = start + len(chunk)
            complete = active.prefill_position == len(active.prompt)
            count = batch.put(count, chunk, start, active.seq_id, logits_last=complete)
            budget -= len(chunk)
            active.slot.tokens.extend(chunk)
            if complete:
                outputs.append((count - 1, active))
        return count

    def _show_text(self, now: float) -> bool:
        """Stream the text of the tokens fed in this step (waking readers once a frame); True if a
        stop string ended some chat.
        """
        token_info = self.tokenizer.token_info
        any_stopped = False
        for active in self._unshown:
            if active.done or not active.unshown:
                continue
            active.unshown = False
            if active.emit(token_info(active.next_token)[0]):
                self._finish(active, "stop", now)
                any_stopped = True
        if now >= self._next_wake:
            self._next_wake = now + WAKE_INTERVAL_S
            for active in self._unshown:
                active.stream.wake()
        self._unshown.clear()
        return any_stopped

    def _sample(self, outputs: list[tuple[int, ActiveRequest]], any_finished: bool) -> None:
        """Pick every chat's next token (greedy ones with one argmax over all their logit rows, see
        :meth:`_mixed_tokens` for the others). Then end the chats that are done.
        """
        if not outputs:
            if any_finished:
                self._settle()
            return
        rows = len(outputs)
        sampled: list[int]
        graph = self._graph
        if graph is not None and all(active.in_graph for _index, active in outputs):  # no logits were copied out
            sampled = [graph.token(index) for index, _active in outputs]
        elif all(active.vectorised for _index, active in outputs):
            matrix = self._logits.matrix(rows)  # read here: only the engine thread touches llama.cpp
            sampled = self._chains.by_rows(rows, lambda start, end: greedy_tokens(matrix[start:end]))
        else:
            sampled = self._mixed_tokens(outputs)
        now = time.perf_counter()
        token_info = self.tokenizer.token_info
        limit = self.context_limit
        unshown = self._unshown
        moved_to_decoding = False
        for (_index, active), token in zip(outputs, sampled, strict=True):
            if active.done:
                continue
            active.generated += 1
            active.last_token_at = now
            if active.first_token_at is None:
                active.first_token_at = now
                self._totals.last_time_to_first_token_s = now - active.submitted_at
                moved_to_decoding = True
            piece, end_of_generation = token_info(token)
            if end_of_generation and not active.ignore_eos:
                self._finish(active, "stop", now)
            elif active.generated >= active.max_tokens or len(active.slot.tokens) >= limit:
                self._finish(active, "stop" if active.emit(piece) else "length", now)
            else:
                active.next_token = token
                active.unshown = True
                unshown.append(active)
                continue
            any_finished = True
        if moved_to_decoding:
            self._decoding.extend(a for a in self._prefilling if a.first_token_at is not None and not a.done)
            # Ascending sequence ids, the same from step to step: only then can llama.cpp reuse the
            # previous step's compute graph instead of building it again (~20% of a 4-chat CPU step).
            self._decoding.sort(key=lambda active: active.seq_id)
            self._prefilling = [a for a in self._prefilling if a.first_token_at is None and not a.done]
        if any_finished:
            self._settle()

    def _mixed_tokens(self, outputs: list[tuple[int, ActiveRequest]]) -> list[int]:
        """Tokens of a step where not every chat is greedy (-1 for chats already done): chats sampled in
        llama.cpp's graph read their token, greedy chats with one argmax, top-k and top-p chats with one numpy
        pass (``llamacpp_topk``), the rest with their own llama.cpp chain (several at once on idle cores,
        ``llamacpp_chains``). llama.cpp copies every row's logits out when any chat of the step needs them.
        """
        rows = len(outputs)
        tokens = [-1] * rows
        greedy_rows: list[int] = []
        top_k_rows: list[int] = []
        top_k_settings: list[TopKSampling] = []
        draws: list[float] = []
        chained: list[tuple[int, int, ActiveRequest]] = []
        graph = self._graph
        for row, (index, active) in enumerate(outputs):
            if active.done:
                continue
            if active.in_graph and graph is not None:
                tokens[row] = graph.token(index)
            elif active.vectorised:
                greedy_rows.append(row)
            elif (top_k := active.sampler.top_k) is not None:
                top_k_rows.append(row)
                top_k_settings.append(top_k)
                draws.append(active.sampler.draw())
            else:
                chained.append((row, index, active))
        if not (greedy_rows or top_k_rows or chained):
            return tokens
        matrix = self._logits.matrix(rows)  # read here: only the engine thread touches llama.cpp
        if greedy_rows:
            greedy = self._chains.by_rows(
                len(greedy_rows), lambda start, end: greedy_tokens(matrix[greedy_rows[start:end]])
            )
            for row, token in zip(greedy_rows, greedy, strict=True):
                tokens[row] = token
        if top_k_rows:  # one pass: split by rows, its many small numpy steps cost more than they gained
            picked = None if len(top_k_rows) == rows else top_k_rows
            for row, token in zip(top_k_rows, sample_top_k(matrix, picked, top_k_settings, draws), strict=True):
                tokens[row] = token
        if self._chains.pays(len(chained)):
            jobs = [(row, active.sampler_pointer) for row, _index, active in chained]
            for (row, _chain), token in zip(jobs, self._chains.sample(matrix, jobs), strict=True):
                tokens[row] = token
            return tokens
        sample = self._library.llama_sampler_sample
        context = self.native.context
        for row, index, active in chained:
            tokens[row] = sample(active.sampler_pointer, context, index)
        return tokens

    def _finish(
        self, active: ActiveRequest, reason: FinishReason, now: float, error: BaseException | None = None
    ) -> None:
        """End a running request: flush its text, free its sampler and its slot (the KV stays).

        The stream itself is finished in :meth:`_settle`, after the snapshot counts it.
        """
        if active.done:
            return
        active.done = True
        if reason != "error":
            if active.unshown:
                active.emit(self.tokenizer.token_info(active.next_token)[0])
            active.flush_text()
        active.unshown = False
        active.sampler.free()
        self._slots.release(active.slot)
        self._totals.requests_finished += 1
        self._totals.tokens_generated += active.generated
        self._ended.append((active.stream, reason, active.metrics(now, reason), error))

    def _settle(self) -> None:
        """After requests ended: drop them, admit waiting ones, publish, then finish their streams."""
        self._decoding = [active for active in self._decoding if not active.done]
        self._prefilling = [active for active in self._prefilling if not active.done]
        now = time.perf_counter()
        if self._waiting and not self._stopping:
            self._admit(now)
        self._publish(now)
        ended, self._ended = self._ended, []
        for stream, reason, metrics, error in ended:
            stream.finish(reason, metrics, error)

    def _decode_failed(self, result: int, outputs: list[tuple[int, ActiveRequest]]) -> None:
        """llama_decode failed: end the chats in this batch with an error and clear their KV."""
        LOGGER.error("llama_decode returned %d", result)
        self._unshown.clear()
        now = time.perf_counter()
        error = EngineError(said(QT_TRANSLATE_NOOP("EngineLoad", "llama.cpp failed to decode (code {0})."), result),
                            said(QT_TRANSLATE_NOOP("EngineLoad", "Try again with a shorter chat.")))
        for active in (*self._decoding, *self._prefilling):
            self._library.llama_memory_seq_rm(self.native.memory, active.seq_id, -1, -1)
            self._slots.forget(active.slot)
            self._finish(active, "error", now, error)
        del outputs[:]
        self._settle()

    def _end_everything(self, reason: FinishReason, error: BaseException | None) -> None:
        now = time.perf_counter()
        for active in (*self._decoding, *self._prefilling):
            self._finish(active, reason, now, error)
        self._stopping = True
        self._settle()
        while self._waiting:
            pending = self._waiting.popleft()
            pending.stream.finish(reason, unstarted_metrics(pending, now, reason), error)
        while self._inbox:
            item = self._inbox.popleft()
            if isinstance(item, PendingRequest):
                item.stream.finish(reason, unstarted_metrics(item, now, reason), error)
            elif isinstance(item, _Call):
                item.future.cancel()
        self._publish(now)

    # ---- engine thread: housekeeping ------------------------------------------------------
    def trim_conversation(self, conversation_id: str, keep_tokens: int = 0) -> None:
        """Cut the KV of idle slots owned by ``conversation_id`` to its first ``keep_tokens`` tokens and
        give the slots up (used after the warm-up: the chat template's opening stays, for any chat to reuse).
        Where the memory cannot drop a tail (recurrent models), the whole sequence is cleared.
        """
        remove = self._library.llama_memory_seq_rm
        memory = self.native.memory
        for slot in self._slots.slots:
            if slot.conversation_id != conversation_id or slot.busy:
                continue
            keep = min(keep_tokens, len(slot.tokens))
            if keep > 0 and remove(memory, slot.seq_id, keep, -1):
                self._slots.trim(slot, keep)
            else:
                remove(memory, slot.seq_id, -1, -1)
                self._slots.forget(slot)
        self._publish(time.perf_counter())

    def reset_statistics(self) -> None:
        """Start totals and rates afresh (after the warm-up request)."""
        self._totals = EngineTotals()
        self._window.clear()
        self._publish(time.perf_counter())

    def _kv_cells_used(self) -> int:
        pos_max = self._library.llama_memory_seq_pos_max
        memory = self.native.memory
        return sum(int(pos_max(memory, slot.seq_id)) + 1 for slot in self._slots.slots)

    def _graphs_reused(self) -> int:
        """Decode steps that reused the previous step's compute graph (llama.cpp counts them)."""
        if self.native.freed:
            return 0
        return int(self._library.llama_perf_context(self.native.context).n_reused)

    def _publish(self, now: float) -> None:
        self._next_publish = now + PUBLISH_INTERVAL_S
        for active in (*self._decoding, *self._prefilling):
            active.stream.update_metrics(active.metrics(now))
        self._snapshot = self._build_snapshot(now, self._kv_cells_used() if not self.native.freed else 0)

    def _build_snapshot(self, now: float, kv_cells_used: int) -> EngineMetrics:
        decode_rate, prefill_rate = self._window.rates(now)
        totals = self._totals
        return EngineMetrics(
            backend="llamacpp",
            model_name=self.native.model_name,
            running_requests=len(self._decoding) + len(self._prefilling),
            waiting_requests=len(self._waiting),
            kv_cells_used=kv_cells_used,
            kv_cells_capacity=self.native.n_ctx,
            prefix_cache_hit_rate=totals.prefix_cache_hit_rate,
            decode_tokens_per_s=decode_rate,
            prefill_tokens_per_s=prefill_rate,
            last_time_to_first_token_s=totals.last_time_to_first_token_s,
            requests_finished=totals.requests_finished,
            tokens_generated=totals.tokens_generated,
            extra={
                "context_limit_tokens": float(self.context_limit),
                "parallel_chats": float(self.native.n_seq_max),
                "idle_slots_with_cache": float(
                    sum(1 for slot in self._slots.slots if slot.tokens and not slot.busy)
                ),
                "graphs_reused": float(self._graphs_reused()),
                "slot_moves": float(self._totals.slot_moves),
            },
        )
