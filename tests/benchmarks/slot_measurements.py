"""Measurement 7: two chats decoding together when one returns to a slot that would split llama.cpp's step.

With a KV stream per chat, llama.cpp computes each run of consecutive sequence ids of a step on its own.
The scene: conversation ``a`` in slot 0, a chat no conversation owns in slot 1, conversation ``c`` in slot 2;
then ``a`` and ``c`` ask their next turns together. The engine moves ``c`` into slot 1 (its KV copied) so
both decode in one computation; without the move (the engine told its context shares one KV stream, as a
unified cache does, which never splits) the step is computed twice. Ratio: aggregate decode moved / not moved.
"""

from __future__ import annotations

from typing import Any

from app.core.engines.requests import ChatMessage, ChatRequest
from tests.benchmarks.bench_support import aggregate_decode_tokens_per_s, figure, greedy, median, run_chats, verdict
from tests.benchmarks.engine_measurements import BenchPlan, SharedResults, loaded_engine, log, prompt_maker


def _two_turns_together(plan: BenchPlan, move: bool, seed: int) -> tuple[float, int]:
    """Aggregate decode tokens/s of a's and c's second turns, and the engine's slot moves."""
    with loaded_engine(plan.engine_config(4, warm_up=False)) as engine:
        scheduler = engine._scheduler
        if not move:
            scheduler.native.stream_per_sequence = False
        maker = prompt_maker(engine)
        first_a = maker.user_chat(seed, plan.prompt_tokens)
        first_c = maker.user_chat(seed + 1, plan.prompt_tokens)
        [reply_a] = run_chats(engine, [ChatRequest(first_a, greedy(8), conversation_id="a")])
        # slot 1 for a chat nobody owns, slot 2 for c: submitted one after the other, both running together
        anonymous, reply_c = run_chats(engine, [
            ChatRequest(maker.user_chat(seed + 2, plan.prompt_tokens), greedy(plan.new_tokens)),
            ChatRequest(first_c, greedy(8), conversation_id="c"),
        ])
        if min(anonymous.metrics.generated_tokens, reply_c.metrics.generated_tokens) < 8:
            raise RuntimeError("the set-up chats did not finish")
        follow_up = ChatMessage("user", maker.text(seed + 3, 8))
        second_a = (*first_a, ChatMessage("assistant", reply_a.text), follow_up)
        second_c = (*first_c, ChatMessage("assistant", reply_c.text), follow_up)
        together = run_chats(engine, [
            ChatRequest(second_a, greedy(plan.new_tokens), conversation_id="a"),
            ChatRequest(second_c, greedy(plan.new_tokens), conversation_id="c"),
        ])
        return aggregate_decode_tokens_per_s(together), int(engine.metrics().extra["slot_moves"])


def measure_slot_gap(plan: BenchPlan, shared: SharedResults) -> dict[str, Any]:
    """Two chats' aggregate decode after a returning conversation would leave a gap: moved vs not moved."""
    moved_rates: list[float] = []
    split_rates: list[float] = []
    moves: list[int] = []
    for round_index in range(plan.repeats):
        for move in ((True, False) if round_index % 2 == 0 else (False, True)):
            rate, count = _two_turns_together(plan, move, 900 + 10 * round_index)
            (moved_rates if move else split_rates).append(rate)
            if move:
                moves.append(count)
        log(f"slot gap round {round_index}: moved {moved_rates[-1]:.1f} tok/s, split {split_rates[-1]:.1f} tok/s")
    ratios = [top / bottom for top, bottom in zip(moved_rates, split_rates, strict=True)]
    return {
        **verdict(median(ratios), 1.0, higher_is_better=True),
        "ratio_runs": [round(r, 4) for r in ratios],
        "moved_aggregate_decode_tok_s": figure(moved_rates, 2),
        "split_aggregate_decode_tok_s": figure(split_rates, 2),
        "slot_moves_per_round": moves,
        "prompt_tokens": plan.prompt_tokens,
        "new_tokens": plan.new_tokens,
    }
