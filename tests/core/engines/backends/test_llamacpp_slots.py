"""Tests of sequence-slot choice: own conversation first, prompt-prefix reuse, LRU eviction."""

from __future__ import annotations

from app.core.engines.backends.llamacpp_slots import SlotTable, common_prefix_length


def test_common_prefix_length_across_chunk_boundaries() -> None:
    base = list(range(1000))
    assert common_prefix_length(base, base) == 1000
    assert common_prefix_length(base, base[:300]) == 300
    changed = [*base[:700], -1, *base[701:]]
    assert common_prefix_length(base, changed) == 700
    assert common_prefix_length([], base) == 0


def _finish(table: SlotTable, conversation_id: str | None, prompt: list[int], generated: list[int]) -> int:
    """Run a request to completion on the table; return the slot's seq id."""
    choice = table.acquire(conversation_id, prompt)
    assert choice is not None
    choice.slot.tokens[:] = prompt + generated
    table.release(choice.slot)
    return choice.slot.seq_id


def test_a_conversation_returns_to_its_slot_and_reuses_its_prefix() -> None:
    table = SlotTable(2)
    seq_a = _finish(table, "a", [1, 2, 3], [4, 5])
    _finish(table, "b", [1, 9, 9], [7])
    choice = table.acquire("a", [1, 2, 3, 4, 5, 6, 7])
    assert choice is not None
    assert choice.slot.seq_id == seq_a
    assert choice.reused_tokens == 5


def test_an_identical_prompt_keeps_its_last_token_to_decode() -> None:
    table = SlotTable(1)
    _finish(table, "a", [1, 2, 3], [])
    choice = table.acquire("a", [1, 2, 3])
    assert choice is not None and choice.reused_tokens == 2


def test_the_least_recently_used_conversation_is_evicted_when_all_slots_are_owned() -> None:
    table = SlotTable(2)
    header = [1, 2]
    seq_a = _finish(table, "a", [*header, 10, 11, 12], [13])
    seq_b = _finish(table, "b", [*header, 20, 21, 22], [23])
    assert seq_a != seq_b
    choice = table.acquire("c", [*header, 30, 31, 32])
    assert choice is not None
    assert choice.slot.seq_id == seq_a
    assert choice.slot.conversation_id == "c"
    assert choice.reused_tokens == len(header)


def test_requests_wait_when_every_slot_is_busy() -> None:
    table = SlotTable(2)
    assert table.acquire(None, [1]) is not None
    assert table.acquire(None, [2]) is not None
    assert table.busy_count == 2
    assert table.acquire(None, [3]) is None


def test_a_prompt_mostly_cached_in_another_conversation_takes_that_slot() -> None:
    table = SlotTable(2)
    seq_a = _finish(table, "a", [1, 2, 3, 4, 5, 6], [])
    choice = table.acquire("b", [1, 2, 3, 4, 5, 60])
    assert choice is not None
    assert choice.slot.seq_id == seq_a
    assert choice.reused_tokens == 5


def test_an_anonymous_request_takes_the_slot_holding_most_of_its_prompt() -> None:
    table = SlotTable(3)
    _finish(table, "a", [1, 2, 3, 4], [])
    seq_b = _finish(table, "b", [5, 6, 7, 8, 9, 10], [])
    choice = table.acquire(None, [5, 6, 7, 8, 9, 99])
    assert choice is not None
    assert choice.slot.seq_id == seq_b
    assert choice.reused_tokens == 5


def test_a_new_conversation_prefers_a_free_slot_to_evicting_one() -> None:
    table = SlotTable(2)
    seq_a = _finish(table, "a", [1, 2, 3, 4], [5])
    choice = table.acquire("b", [1, 7, 8, 9])
    assert choice is not None
    assert choice.slot.seq_id != seq_a


def test_without_reuse_nothing_counts_as_cached() -> None:
    table = SlotTable(1)
    _finish(table, "a", [1, 2, 3], [4])
    choice = table.acquire("a", [1, 2, 3, 4, 5], reuse=False)
    assert choice is not None and choice.reused_tokens == 0


def test_forget_clears_tokens_and_owner() -> None:
    table = SlotTable(1)
    _finish(table, "a", [1, 2, 3], [])
    slot = table.slots[0]
    table.forget(slot)
    assert slot.tokens == [] and slot.conversation_id is None


def test_an_anonymous_chat_takes_the_lowest_free_id_so_running_chats_stay_neighbours() -> None:
    # with a KV stream per chat, llama.cpp splits a step whose ids have a gap (0, 2, 3) in two
    table = SlotTable(4)
    running = [table.acquire(None, [10 * n, 10 * n + 1]) for n in (1, 2, 3)]
    assert [choice.slot.seq_id for choice in running if choice is not None] == [0, 1, 2]
    table.release(running[1].slot)  # type: ignore[union-attr]
    choice = table.acquire(None, [40, 41])  # slot 3 was used least recently, slot 1 fills the gap
    assert choice is not None and choice.slot.seq_id == 1


def test_trim_keeps_the_opening_for_any_chat_to_reuse() -> None:
    table = SlotTable(2)
    seq = _finish(table, "warm-up", [1, 2, 3, 4], [5])
    table.trim(table.slots[seq], 2)
    assert table.slots[seq].tokens == [1, 2] and table.slots[seq].conversation_id is None
    choice = table.acquire("new", [1, 2, 9])
    assert choice is not None and choice.slot.seq_id == seq and choice.reused_tokens == 2


def test_a_request_whose_slot_leaves_a_gap_gets_a_free_slot_beside_the_running_ones() -> None:
    table = SlotTable(4)
    _finish(table, "a", [1, 2], [9])  # slot 0
    together = [table.acquire(None, [3, 4]), table.acquire("c", [5, 6])]  # slots 1 (nobody's) and 2 (c)
    for choice, tokens in zip(together, ([3, 4, 9], [5, 6, 9]), strict=True):
        assert choice is not None
        choice.slot.tokens[:] = tokens
        table.release(choice.slot)
    running = table.acquire("a", [1, 2, 9, 7])
    returning = table.acquire("c", [5, 6, 9, 8])
    assert running is not None and returning is not None and returning.slot.seq_id == 2
    target = table.neighbour_for(returning.slot)
    assert target is not None and target.seq_id == 1  # ids 0 and 1 decode in one computation, 0 and 2 in two
    table.move(returning.slot, target)
    assert (target.busy, target.conversation_id, target.tokens) == (True, "c", [5, 6, 9])
    assert (table.slots[2].busy, table.slots[2].conversation_id, table.slots[2].tokens) == (False, None, [5, 6, 9])
    assert table.neighbour_for(target) is None  # already beside slot 0


def test_no_move_when_no_free_slot_closes_the_gap() -> None:
    table = SlotTable(3)
    for conversation in "abc":
        _finish(table, conversation, [ord(conversation)], [9])
    assert table.acquire("a", [ord("a"), 9]) is not None
    returning = table.acquire("c", [ord("c"), 9])
    assert returning is not None and table.neighbour_for(returning.slot) is None  # slot 1 is b's
