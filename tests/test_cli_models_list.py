"""`unidesk models list` as text: the speed column (decode ceiling, slow mark), the capped badge, and columns that
line up whatever the cell widths (issue 15, item 5)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from app.cli.table import aligned_lines, display_width
from tests.test_cli import unidesk

HEADER = ("MODEL", "VARIANT", "FORMAT", "SIZE", "FIT", "SPEED", "LICENCE", "LANGUAGES")


def catalog_rows(stdout: str) -> tuple[str, list[str]]:
    """The table's header line and its rows (up to the footnote)."""
    lines = stdout.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("MODEL "))
    end = next(index for index, line in enumerate(lines) if line.startswith("(* downloaded"))
    return lines[start], lines[start + 1:end]


def fits_by_variant(stdout: str) -> dict[tuple[str, str], dict[str, object]]:
    return {(model["id"], variant["id"]): variant["fit"] for model in json.loads(stdout)["catalog"]
            for variant in model["variants"]}


def cell(row: str, header: str, column: str) -> str:
    """The text of ``column`` in ``row``: from the header's start of that column to the next one's."""
    names = [name for name in HEADER if name in header]
    start = header.index(column)
    following = names.index(column) + 1
    end = header.index(names[following]) if following < len(names) else len(row)
    assert start == 0 or row[start - 1] == " ", (row, column)  # the cell starts where its header does
    return row[start:end].strip()


def test_the_text_table_shows_each_variants_speed_and_capped_fit_in_columns_that_line_up(tmp_path: Path) -> None:
    arguments = ("models", "list", "--machine", "dgx-spark", "--ctx", "131072")
    text, document = unidesk(tmp_path, *arguments), unidesk(tmp_path, *arguments, "--json")
    assert text.returncode == 0 and document.returncode == 0, text.stderr + document.stderr
    header, rows = catalog_rows(text.stdout)
    assert header.split() == list(HEADER)
    fits = fits_by_variant(document.stdout)
    assert len(rows) == len(fits)

    for row in rows:
        model, variant = cell(row, header, "MODEL").removesuffix(" *"), cell(row, header, "VARIANT")
        fit = fits[(model, variant)]
        rate = float(fit["decode_tok_s"])  # type: ignore[arg-type]
        shown = f"{rate:.1f}" if rate < 10 else f"{rate:,.0f}"
        assert cell(row, header, "SPEED").startswith(f"<= {shown} tok/s"), row
        assert cell(row, header, "LICENCE") and cell(row, header, "LANGUAGES"), row
        if fit["capped"]:
            assert cell(row, header, "FIT").endswith("maximum"), row
    small = next(row for row in rows if row.startswith("qwen2.5-0.5b-instruct ") and " q4_k_m " in row)
    assert cell(small, header, "FIT") == "fits at its 32K maximum"
    assert "273.0 GB/s of memory bandwidth" in text.stdout
    assert text.stdout.startswith("Fit judged for 131072 tokens × ")  # the × the plan and the window write


def test_a_model_too_slow_to_read_along_is_marked_slow(tmp_path: Path) -> None:
    text = unidesk(tmp_path, "models", "list", "--machine", "cpu-laptop")
    document = unidesk(tmp_path, "models", "list", "--machine", "cpu-laptop", "--json")
    assert text.returncode == 0 and document.returncode == 0, text.stderr + document.stderr
    header, rows = catalog_rows(text.stdout)
    fits = fits_by_variant(document.stdout)
    marked = {(cell(row, header, "MODEL"), cell(row, header, "VARIANT")) for row in rows
              if cell(row, header, "SPEED").endswith(" slow")}
    slow = {key for key, fit in fits.items() if fit["slow"] and fit["badge"] != "unsupported"}
    assert slow and marked == slow


def test_a_long_local_model_name_does_not_shift_the_local_columns(tmp_path: Path, tiny_gguf: Path) -> None:
    long_name = tmp_path / ("a-local-model-with-a-name-longer-than-any-column-" + "x" * 20 + ".gguf")
    shutil.copy(tiny_gguf, long_name)
    short_name = tmp_path / "m.gguf"
    shutil.copy(tiny_gguf, short_name)
    home = tmp_path / "home"
    for path in (long_name, short_name):
        assert unidesk(home, "models", "add", str(path)).returncode == 0
    text = unidesk(home, "models", "list", "--machine", "cpu-laptop")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("ID ") and "PATH" in line)
    listed = [line for line in lines if line.rstrip().endswith(".gguf") and line.startswith("  ")]
    assert len(listed) == 2
    for line in listed:
        path_column = header.index("PATH")
        assert line[path_column:].startswith(str(tmp_path)) and line[path_column - 1] == " ", line
        assert line[header.index("ORIGIN"):].startswith("your file"), line


def test_aligned_lines_pad_by_the_columns_a_terminal_draws() -> None:
    lines = aligned_lines(("NAME", "SIZE", "NOTE"), [("模型", "1 MB", "wide"), ("model", "12 MB", "-")],
                          (False, True, False))
    assert lines == ["NAME    SIZE  NOTE", "模型    1 MB  wide", "model  12 MB  -"]
    assert display_width("模型") == 4 and display_width("≤ 5") == 3
