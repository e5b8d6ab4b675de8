"""``unidesk FILE...``: files named on the command line (a file manager's "Open with UniDesk") instead of a command."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

# Global options that take a value: the word after them is not a file.
_OPTIONS_WITH_VALUE = frozenset({"--home"})


def split_open_files(argv: Sequence[str], commands: Collection[str]) -> tuple[list[str], list[Path]]:
    """Take the files out of ``argv`` when the first word that is not an option is an existing path rather
    than a command: (the arguments left, the files). Otherwise ``argv`` is returned unchanged, no files."""
    arguments, files = list(argv), []
    index = 0
    while index < len(arguments):
        word = arguments[index]
        if word in _OPTIONS_WITH_VALUE:
            index += 2
            continue
        if word.startswith("-"):
            index += 1
            continue
        if word in commands or not Path(word).exists():
            return list(argv), []
        break
    else:
        return list(argv), []
    kept = arguments[:index]
    for word in arguments[index:]:
        if word.startswith("-") or not Path(word).exists():
            kept.append(word)
        else:
            files.append(Path(word).resolve())
    return kept, files
