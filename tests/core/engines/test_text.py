"""Tests of incremental UTF-8 decoding and stop-string hold-back."""

from __future__ import annotations

import pytest

from app.core.engines.text import StopStringFilter, Utf8StreamDecoder

MIXED_TEXT = "Hello 你好, world! Ünïcödé 🙂 中文。"


def _decode_pieces(pieces: list[bytes]) -> list[str]:
    decoder = Utf8StreamDecoder()
    outputs = [decoder.decode(piece) for piece in pieces]
    outputs.append(decoder.flush())
    return outputs


def test_a_character_split_over_three_pieces_comes_out_whole() -> None:
    encoded = "你".encode()
    assert len(encoded) == 3
    outputs = _decode_pieces([encoded[:1], encoded[1:2], encoded[2:]])
    assert outputs == ["", "", "你", ""]


@pytest.mark.parametrize("piece_size", [1, 2, 3, 5, 7])
def test_any_split_of_mixed_text_rejoins_without_replacement_characters(piece_size: int) -> None:
    data = MIXED_TEXT.encode("utf-8")
    pieces = [data[start : start + piece_size] for start in range(0, len(data), piece_size)]
    outputs = _decode_pieces(pieces)
    assert "".join(outputs) == MIXED_TEXT
    assert all("\ufffd" not in output for output in outputs)


def test_every_emitted_piece_is_complete_text() -> None:
    data = "🙂中".encode()
    outputs = _decode_pieces([bytes([value]) for value in data])
    assert [output for output in outputs if output] == ["🙂", "中"]


def test_invalid_bytes_become_one_replacement_each_and_decoding_goes_on() -> None:
    outputs = _decode_pieces([b"a", b"\xff", b"b", "中".encode()])
    assert "".join(outputs) == "a\ufffdb中"


def test_a_character_cut_off_at_the_end_is_dropped_not_shown_broken() -> None:
    decoder = Utf8StreamDecoder()
    assert decoder.decode(b"ok" + "中".encode()[:2]) == "ok"
    assert decoder.flush() == ""
    assert decoder.decode("文".encode()) == "文"  # the held bytes are gone, not glued to what follows


def _run_filter(stop_strings: list[str], pieces: list[str]) -> tuple[str, bool]:
    stop_filter = StopStringFilter(stop_strings)
    shown: list[str] = []
    for piece in pieces:
        visible, stopped = stop_filter.feed(piece)
        shown.append(visible)
        if stopped:
            return "".join(shown), True
    shown.append(stop_filter.flush())
    return "".join(shown), False


def test_stop_string_inside_one_piece_cuts_the_text_before_it() -> None:
    assert _run_filter(["STOP"], ["abc STOP def"]) == ("abc ", True)


def test_stop_string_spanning_pieces_is_never_shown() -> None:
    stop_filter = StopStringFilter(["</answer>"])
    assert stop_filter.feed("The result</") == ("The result", False)
    assert stop_filter.feed("ans") == ("", False)
    assert stop_filter.feed("wer> trailing") == ("", True)
    assert stop_filter.flush() == ""


def test_held_text_that_turns_out_not_to_be_a_stop_is_released() -> None:
    stop_filter = StopStringFilter(["\n\nUser:"])
    assert stop_filter.feed("line\n") == ("line", False)
    assert stop_filter.feed("\nUs") == ("", False)
    assert stop_filter.feed("ually") == ("\n\nUsually", False)


def test_text_ending_in_a_partial_stop_is_flushed_at_the_end() -> None:
    assert _run_filter(["STOP"], ["almost ST"]) == ("almost ST", False)


def test_the_earliest_of_several_stop_strings_wins() -> None:
    assert _run_filter(["world", "lo w"], ["hello world"]) == ("hel", True)


def test_chinese_stop_string() -> None:
    assert _run_filter(["文中"], ["中", "文", "中", "文"]) == ("中", True)


def test_after_a_stop_nothing_more_is_emitted() -> None:
    stop_filter = StopStringFilter(["x"])
    assert stop_filter.feed("ax") == ("a", True)
    assert stop_filter.feed("more") == ("", True)
    assert stop_filter.flush() == ""


def test_without_stop_strings_text_passes_straight_through() -> None:
    stop_filter = StopStringFilter(["", ""])
    assert not stop_filter.active
    assert stop_filter.feed("any text") == ("any text", False)
