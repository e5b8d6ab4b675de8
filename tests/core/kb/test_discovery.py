"""discover_files: recursive and ordered, ignore rules, links and loops, problems reported."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.kb.discovery import DEFAULT_IGNORE_RULES, IgnoreRules, discover_files, is_supported


def make_tree(root: Path, files: list[str]) -> None:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"content of {name}\n", encoding="utf-8")


TREE = [
    "b.md",
    "a.txt",
    "docs/guide.pdf",
    "docs/z/deep.rst",
    "docs/image.png",
    "docs/archive.tar.gz",
    "docs/model.gguf",
    "docs/weights.safetensors",
    "src/main.py",
    "src/__pycache__/main.cpython-311.pyc",
    "node_modules/lib/index.js",
    ".git/config",
    ".hidden/notes.txt",
    ".secret.txt",
    "build/out.txt",
    "dist/pkg.txt",
    ".venv/lib/site.py",
    "target/debug/app.rs",
    "pkg.egg-info/PKG-INFO",
    "Makefile",
    "LICENSE",
]


def relative(root: Path, found: list[Path]) -> list[str]:
    return [path.relative_to(root).as_posix() for path in found]


def test_folders_are_walked_in_name_order_with_ignore_rules(tmp_path: Path) -> None:
    make_tree(tmp_path, TREE)
    found = list(discover_files([tmp_path]))
    assert relative(tmp_path, [f.path for f in found]) == [
        "LICENSE",
        "Makefile",
        "a.txt",
        "b.md",
        "docs/guide.pdf",
        "docs/z/deep.rst",
        "src/main.py",
    ]
    first = found[2]
    assert first.size == (tmp_path / "a.txt").stat().st_size
    assert first.mtime_ns == (tmp_path / "a.txt").stat().st_mtime_ns
    assert first.path.is_absolute()


def test_explicit_paths_are_taken_even_when_a_folder_scan_would_skip_them(tmp_path: Path) -> None:
    make_tree(tmp_path, TREE)
    problems: list[tuple[Path, str]] = []
    found = list(
        discover_files(
            [tmp_path / ".secret.txt", tmp_path / "build", tmp_path / "docs/model.gguf", tmp_path / "nope.txt"],
            on_problem=lambda path, problem: problems.append((path, problem)),
        )
    )
    assert relative(tmp_path, [f.path for f in found]) == [".secret.txt", "build/out.txt"]
    assert [(path.name, problem.split()[0]) for path, problem in problems] == [
        ("model.gguf", "is"),
        ("nope.txt", "does"),
    ]
    assert "not a document" in problems[0][1] and "does not exist" in problems[1][1]


def test_each_file_is_yielded_once(tmp_path: Path) -> None:
    make_tree(tmp_path, ["docs/a.txt", "docs/b.txt"])
    (tmp_path / "docs" / "alias.txt").symlink_to(tmp_path / "docs" / "a.txt")
    found = list(discover_files([tmp_path / "docs", tmp_path / "docs" / "b.txt", tmp_path]))
    assert relative(tmp_path, [f.path for f in found]) == ["docs/a.txt", "docs/b.txt"]


def test_symlink_loops_end(tmp_path: Path) -> None:
    make_tree(tmp_path, ["root/a.txt", "root/sub/b.txt"])
    (tmp_path / "root" / "sub" / "loop").symlink_to(tmp_path / "root")
    (tmp_path / "root" / "sub" / "self").symlink_to(tmp_path / "root" / "sub")
    found = list(discover_files([tmp_path / "root"]))
    assert relative(tmp_path, [f.path for f in found]) == ["root/a.txt", "root/sub/b.txt"]


def test_linked_folders_are_followed_unless_the_rules_say_no(tmp_path: Path) -> None:
    make_tree(tmp_path, ["elsewhere/x.txt", "kb/y.txt"])
    (tmp_path / "kb" / "linked").symlink_to(tmp_path / "elsewhere")
    assert relative(tmp_path, [f.path for f in discover_files([tmp_path / "kb"])]) == ["kb/linked/x.txt", "kb/y.txt"]
    no_links = IgnoreRules(follow_symlinks=False)
    assert relative(tmp_path, [f.path for f in discover_files([tmp_path / "kb"], no_links)]) == ["kb/y.txt"]


def test_broken_links_are_reported(tmp_path: Path) -> None:
    make_tree(tmp_path, ["kb/ok.txt"])
    (tmp_path / "kb" / "dangling.txt").symlink_to(tmp_path / "missing.txt")
    problems: list[tuple[Path, str]] = []
    found = list(discover_files([tmp_path / "kb"], on_problem=lambda p, m: problems.append((p, m))))
    assert relative(tmp_path, [f.path for f in found]) == ["kb/ok.txt"]
    assert problems == [(tmp_path / "kb" / "dangling.txt", "broken link")]


def test_custom_rules(tmp_path: Path) -> None:
    make_tree(tmp_path, [".notes/a.txt", "build/b.txt", "c.log"])
    rules = IgnoreRules(skip_hidden=False, skipped_folders=frozenset({"build"}),
                        skipped_extensions=DEFAULT_IGNORE_RULES.skipped_extensions | {"log"})
    assert relative(tmp_path, [f.path for f in discover_files([tmp_path], rules)]) == [".notes/a.txt"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can list any folder")
def test_unreadable_folder_is_reported(tmp_path: Path) -> None:
    make_tree(tmp_path, ["open/a.txt", "closed/b.txt"])
    (tmp_path / "closed").chmod(0)
    problems: list[tuple[Path, str]] = []
    try:
        found = list(discover_files([tmp_path], on_problem=lambda p, m: problems.append((p, m))))
    finally:
        (tmp_path / "closed").chmod(0o755)
    assert relative(tmp_path, [f.path for f in found]) == ["open/a.txt"]
    assert problems[0][0] == tmp_path / "closed" and "cannot list" in problems[0][1]


def test_is_supported_by_name() -> None:
    for name in ["a.txt", "b.MD", "c.pdf", "d.docx", "e.html", "f.csv", "g.py", "h.rs", "README", "notes.xyz"]:
        assert is_supported(Path(name)), name
    for name in ["a.gif", "b.ZIP", "c.gguf", "d.safetensors", "e.mp4", "f.exe", "g.pyc", "h.xlsx", "i.so"]:
        assert not is_supported(Path(name)), name


def test_pictures_are_taken_when_named_but_skipped_in_folder_scans(tmp_path: Path) -> None:
    """PNG/JPEG are read by OCR when added one by one; a folder's icons and screenshots are left alone."""
    make_tree(tmp_path, ["scans/page.png", "scans/photo.JPG", "scans/notes.txt"])
    in_folder = list(discover_files([tmp_path / "scans"]))
    assert relative(tmp_path, [f.path for f in in_folder]) == ["scans/notes.txt"]
    named = list(discover_files([tmp_path / "scans/page.png", tmp_path / "scans/photo.JPG"]))
    assert relative(tmp_path, [f.path for f in named]) == ["scans/page.png", "scans/photo.JPG"]
    assert is_supported(Path("a.png")) and is_supported(Path("b.jpeg"))
