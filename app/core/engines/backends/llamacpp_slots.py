"""Sequence slots of a llama.cpp context: which chat owns which KV stream, prompt reuse, LRU eviction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

_COMPARE_CHUNK = 256
REUSE_SHARE_TO_TAKE_OVER = 0.5
"""A request may take over another conversation's idle slot if their common prefix covers this share."""


def common_prefix_length(first: Sequence[int], second: Sequence[int]) -> int:
    """Number of leading tokens the two sequences share (compares in chunks, in C)."""
    limit = min(len(first), len(second))
    start = 0
    while start < limit:
        end = min(start + _COMPARE_CHUNK, limit)
        if first[start:end] != second[start:end]:
            for index in range(start, end):
                if first[index] != second[index]:
                    return index
        start = end
    return limit


@dataclass
class SequenceSlot:
    """One llama.cpp sequence: ``tokens`` are exactly what its KV cache holds, at positions 0..n-1."""

    seq_id: int
    tokens: list[int] = field(default_factory=list)
    conversation_id: str | None = None
    busy: bool = False
    last_used: int = 0


@dataclass(frozen=True)
class SlotChoice:
    """The slot a request got and how many of its prompt tokens are already in that slot's KV."""

    slot: SequenceSlot
    reused_tokens: int


class SlotTable:
    """Hands idle slots to requests, preferring the one whose KV already holds most of the prompt.

    Order of preference: the request's own conversation; any idle slot whose cached tokens
    cover at least half of the prompt (like llama-server's prompt-similarity choice); an idle
    slot no conversation owns (best prefix first, then the lowest id); else the least recently used idle slot,
    evicting its conversation (which is re-prefilled transparently when it returns).
    """

    def __init__(self, n_slots: int) -> None:
        self.slots = [SequenceSlot(seq_id) for seq_id in range(n_slots)]
        self._clock = 0

    @property
    def busy_count(self) -> int:
        return sum(1 for slot in self.slots if slot.busy)

    def has_idle(self) -> bool:
        return any(not slot.busy for slot in self.slots)

    def acquire(self, conversation_id: str | None, prompt: Sequence[int], reuse: bool = True) -> SlotChoice | None:
        """Mark the best idle slot busy for this request; None when every slot is busy.

        ``reused_tokens`` is at most ``len(prompt) - 1``: the last prompt token is always
        decoded again so the request has logits to sample its first token from.
        """
        idle = [slot for slot in self.slots if not slot.busy]
        if not idle:
            return None
        slot = self._choose(idle, conversation_id, prompt)
        reused = min(common_prefix_length(slot.tokens, prompt), len(prompt) - 1) if reuse else 0
        slot.busy = True
        slot.conversation_id = conversation_id
        self._clock += 1
        slot.last_used = self._clock
        return SlotChoice(slot, max(reused, 0))

    def _choose(self, idle: list[SequenceSlot], conversation_id: str | None, prompt: Sequence[int]) -> SequenceSlot:
        if conversation_id is not None:
            own = [slot for slot in idle if slot.conversation_id == conversation_id]
            if own:
                return max(own, key=lambda slot: slot.last_used)
        prefixes = {slot.seq_id: common_prefix_length(slot.tokens, prompt) for slot in idle}
        best = max(idle, key=lambda slot: (prefixes[slot.seq_id], -slot.last_used))
        if prompt and prefixes[best.seq_id] >= REUSE_SHARE_TO_TAKE_OVER * len(prompt):
            return best
        unowned = [slot for slot in idle if slot.conversation_id is None]
        if unowned:
            # lowest id on a tie: chats decoding together then hold neighbouring ids, and llama.cpp runs
            # one step for all of them (with a KV stream per chat, a gap in the ids splits the step in two)
            return max(unowned, key=lambda slot: (prefixes[slot.seq_id], -slot.seq_id))
        return min(idle, key=lambda slot: slot.last_used)

    def neighbour_for(self, slot: SequenceSlot) -> SequenceSlot | None:
        """An idle slot no conversation owns that ``slot``'s request could run in instead, so that the busy
        ids form fewer runs of consecutive ids (llama.cpp computes each run of a step on its own when every
        sequence has a KV stream of its own); None when ``slot`` adds no run or no such slot helps.
        """
        others = {other.seq_id for other in self.slots if other.busy and other is not slot}
        if not others:
            return None
        runs_with_slot = _runs(others | {slot.seq_id})
        if runs_with_slot == _runs(others):
            return None
        free = [other for other in self.slots if not other.busy and other.conversation_id is None]
        best = min(free, key=lambda other: (_runs(others | {other.seq_id}), other.seq_id), default=None)
        if best is None or _runs(others | {best.seq_id}) >= runs_with_slot:
            return None
        return best

    def move(self, slot: SequenceSlot, target: SequenceSlot) -> None:
        """``slot``'s KV was copied to ``target``: the request and the conversation go there; ``slot`` keeps
        its copy of the tokens for any chat to reuse, owned by nobody.
        """
        target.tokens = list(slot.tokens)
        target.conversation_id, slot.conversation_id = slot.conversation_id, None
        target.busy, slot.busy = True, False
        target.last_used = slot.last_used

    def release(self, slot: SequenceSlot) -> None:
        """The request on ``slot`` ended; its KV stays for the conversation's next turn."""
        slot.busy = False
        self._clock += 1
        slot.last_used = self._clock

    def forget(self, slot: SequenceSlot) -> None:
        """The slot's KV was cleared: it holds nothing and belongs to no conversation."""
        self.trim(slot, 0)

    def trim(self, slot: SequenceSlot, keep_tokens: int) -> None:
        """The slot's KV was cut to its first ``keep_tokens`` tokens; it belongs to no conversation."""
        del slot.tokens[keep_tokens:]
        slot.conversation_id = None


def _runs(ids: set[int]) -> int:
    """Number of runs of consecutive integers in ``ids`` ({0, 1, 3} has two)."""
    return sum(1 for seq_id in ids if seq_id - 1 not in ids)
