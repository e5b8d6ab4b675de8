"""SettingsStore: real files on disk, atomic saves, per-key recovery from bad files, backups."""

from __future__ import annotations

import os
import stat
import sys
import tomllib
from pathlib import Path

import pytest

from app.core.config import (
    CURRENT_VERSION,
    AppPaths,
    Settings,
    SettingsFileNewerError,
    SettingsSaveError,
    SettingsStore,
)
from app.core.util.errors import UserFacingError
from tests.core.config.conftest import all_changed_settings, write_settings_file

EXPECTED_BACKUP_NAME = "settings.toml.bad-20261129-085500"


def _files_in(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def test_missing_file_gives_defaults_without_problems_or_files(store: SettingsStore) -> None:
    result = store.load()
    assert result.settings == Settings.defaults()
    assert result.problems == () and result.backup_path is None and result.file_version is None
    assert not store.path.exists()


def test_round_trip_of_every_setting_changed(store: SettingsStore) -> None:
    settings = all_changed_settings()
    assert len(settings.changed_keys()) == len(settings)
    store.save(settings)
    result = store.load()
    assert result.problems == ()
    assert result.settings == settings
    assert result.settings.to_dict() == settings.to_dict()
    assert result.file_version == CURRENT_VERSION


def test_saved_file_is_readable_toml_with_version_and_one_table_per_section(store: SettingsStore) -> None:
    store.save(Settings({"engine.parallel_chats": 4, "ui.theme": "dark"}))
    text = store.path.read_text(encoding="utf-8")
    assert text.startswith(f"version = {CURRENT_VERSION}\n")
    assert "[engine]\nparallel_chats = 4\n" in text
    assert tomllib.loads(text) == {"version": CURRENT_VERSION, "engine": {"parallel_chats": 4},
                                   "ui": {"theme": "dark"}}


def test_defaults_are_not_written(store: SettingsStore) -> None:
    store.save(Settings.defaults())
    assert tomllib.loads(store.path.read_text(encoding="utf-8")) == {"version": CURRENT_VERSION}


def test_save_creates_the_config_folder_and_leaves_no_temporary_files(store: SettingsStore) -> None:
    assert not store.path.parent.exists()
    store.save(Settings({"kb.top_k": 9}))
    store.save(Settings({"kb.top_k": 10}))
    assert _files_in(store.path.parent) == ["settings.toml"]
    assert store.load().settings["kb.top_k"] == 10


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_saved_file_is_private_because_it_may_hold_an_api_key(store: SettingsStore) -> None:
    store.save(Settings({"engine.remote_api_key": "sk-secret"}))
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600


def test_failed_replace_keeps_the_old_file_and_removes_the_temporary(
    store: SettingsStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.save(Settings({"engine.parallel_chats": 2}))
    before = store.path.read_bytes()

    def failing_replace(source: object, target: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(SettingsSaveError) as caught:
        store.save(Settings({"engine.parallel_chats": 7}))
    assert isinstance(caught.value, UserFacingError)
    assert "No space left on device" in caught.value.message and str(store.path) in caught.value.message
    assert store.path.read_bytes() == before
    assert _files_in(store.path.parent) == ["settings.toml"]


VALID_LINE = "threads = 8\n"

BAD_FILES = {
    "below minimum": (
        f"version = 2\n[engine]\n{VALID_LINE}parallel_chats = -3\n",
        "engine.parallel_chats",
        "engine.parallel_chats = -3 is below the minimum 1 (or 0 for automatic); using the default 0.",
    ),
    "wrong type": (
        f'version = 2\n[engine]\n{VALID_LINE}parallel_chats = "4"\n',
        "engine.parallel_chats",
        'engine.parallel_chats = "4" is text, not a whole number; using the default 0.',
    ),
    "bad choice": (
        f'version = 2\n[engine]\n{VALID_LINE}kv_cache_dtype = "q5_k"\n',
        "engine.kv_cache_dtype",
        'engine.kv_cache_dtype = "q5_k" is not one of: auto, f16, bf16, q8_0, q4_0, fp8; '
        'using the default "auto".',
    ),
    "table instead of value": (
        f"version = 2\n[engine]\n{VALID_LINE}[engine.parallel_chats]\nvalue = 4\n",
        "engine.parallel_chats",
        "engine.parallel_chats is a table, not a whole number; using the default 0.",
    ),
    "unknown key": (
        f"version = 2\n[engine]\n{VALID_LINE}paralel_chats = 4\n",
        "engine.paralel_chats",
        "engine.paralel_chats is not a known setting; ignored (did you mean engine.parallel_chats?).",
    ),
    "unknown section": (
        f"version = 2\n[engine]\n{VALID_LINE}[telemetry]\nenabled = true\n",
        "telemetry.enabled",
        "telemetry.enabled is not a known setting; ignored.",
    ),
    "section is not a table": (
        f"version = 2\nui = 5\n[engine]\n{VALID_LINE}",
        "ui",
        "ui = 5 should be a table of settings ([ui]); ignored.",
    ),
    "overlap not below chunk size": (
        f"version = 2\n[engine]\n{VALID_LINE}[kb]\nchunk_tokens = 256\nchunk_overlap_tokens = 300\n",
        "kb.chunk_overlap_tokens",
        "kb.chunk_overlap_tokens = 300 is not smaller than kb.chunk_tokens = 256; "
        "using the default 64 for kb.chunk_overlap_tokens.",
    ),
    "bad version": (
        f'version = "two"\n[engine]\n{VALID_LINE}',
        "version",
        f'version = "two" in settings.toml is not a format version (a whole number from 1); '
        f"reading the file as format {CURRENT_VERSION}.",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_key_falls_back_alone_with_a_precise_message_and_a_backup(
    store: SettingsStore, case: str
) -> None:
    content, key, message = BAD_FILES[case]
    original = write_settings_file(store, content)
    result = store.load()
    assert [(problem.key, problem.message) for problem in result.problems] == [(key, message)]
    assert result.settings["engine.threads"] == 8, "valid keys are kept"
    if key in result.settings:
        assert result.settings.is_default(key)
    assert result.backup_path == store.path.parent / EXPECTED_BACKUP_NAME
    assert result.backup_path.read_bytes() == original
    assert store.path.read_bytes() == original, "loading never rewrites the user's file"


def test_overlap_rule_resets_both_keys_when_the_default_overlap_does_not_fit(store: SettingsStore) -> None:
    write_settings_file(store, "version = 2\n[kb]\nchunk_tokens = 64\nchunk_overlap_tokens = 100\n")
    result = store.load()
    assert result.settings.is_default("kb.chunk_tokens")
    assert result.settings.is_default("kb.chunk_overlap_tokens")
    assert [problem.key for problem in result.problems] == ["kb.chunk_overlap_tokens"]
    assert "using the defaults for kb.chunk_tokens, kb.chunk_overlap_tokens" in result.problems[0].message


def test_broken_syntax_reports_line_and_column_and_uses_all_defaults(store: SettingsStore) -> None:
    original = write_settings_file(store, "version = 2\n[engine]\nthreads = 8\nparallel_chats = = 4\n")
    result = store.load()
    assert result.settings == Settings.defaults()
    assert len(result.problems) == 1 and result.problems[0].key is None
    message = result.problems[0].message
    assert message.startswith("settings.toml has a syntax error: ")
    assert "line 4, column 18" in message and message.endswith("using the defaults for all settings.")
    assert result.backup_path is not None and result.backup_path.read_bytes() == original


def test_non_utf8_bytes_cost_only_the_value_that_holds_them(store: SettingsStore) -> None:
    original = write_settings_file(
        store, b'version = 2\n[engine]\nthreads = 8\n[model]\npath = "/models/caf\xe9.gguf"\n'
    )
    result = store.load()
    assert result.settings["engine.threads"] == 8
    assert result.settings.is_default("model.path")
    keys = [problem.key for problem in result.problems]
    assert keys == [None, "model.path"]
    assert "not UTF-8 text (byte 0xe9 at position" in result.problems[0].message
    assert "\\xe9" in result.problems[1].message and "not UTF-8" in result.problems[1].message
    result.problems[1].message.encode("utf-8")  # printable: no lone surrogates leak out
    assert result.backup_path is not None and result.backup_path.read_bytes() == original


def test_backups_are_never_overwritten_and_not_duplicated(store: SettingsStore) -> None:
    first = write_settings_file(store, "version = 2\n[engine]\nparallel_chats = -3\n")
    first_backup = store.load().backup_path
    assert store.load().backup_path == first_backup, "the same bad file is kept once"
    second = write_settings_file(store, "version = 2\n[engine]\nparallel_chats = 99\n")
    second_backup = store.load().backup_path
    assert first_backup is not None and second_backup is not None
    assert second_backup != first_backup
    assert second_backup.name == EXPECTED_BACKUP_NAME + "-2"
    assert first_backup.read_bytes() == first and second_backup.read_bytes() == second


def test_saving_after_a_bad_load_writes_a_clean_file(store: SettingsStore) -> None:
    write_settings_file(store, "version = 2\n[engine]\nthreads = 8\nparallel_chats = -3\nturbo = 1\n")
    loaded = store.load()
    store.save(loaded.settings)
    again = store.load()
    assert again.problems == () and again.settings["engine.threads"] == 8


def test_integral_float_in_the_file_is_accepted(store: SettingsStore) -> None:
    write_settings_file(store, "version = 2\n[engine]\nparallel_chats = 4.0\n")
    result = store.load()
    assert result.problems == () and result.backup_path is None
    assert result.settings["engine.parallel_chats"] == 4


@pytest.mark.parametrize("content", ["", "\ufeffversion = 2\n", "# only a comment\n"])
def test_empty_commented_or_bom_files_are_fine(store: SettingsStore, content: str) -> None:
    write_settings_file(store, content)
    result = store.load()
    assert result.problems == () and result.settings == Settings.defaults()


def test_version_1_file_is_migrated_on_load_and_upgraded_on_save(store: SettingsStore) -> None:
    write_settings_file(
        store, 'parallel_chats = 3\nchunk_size = 800\ntheme = "auto"\nflash_attention = false\n'
    )
    result = store.load()
    assert result.problems == () and result.file_version == 1
    expected = {"engine.parallel_chats": 3, "kb.chunk_tokens": 800, "ui.theme": "system",
                "engine.flash_attention": "off"}
    assert {key: result.settings[key] for key in expected} == expected
    store.save(result.settings)
    saved = tomllib.loads(store.path.read_text(encoding="utf-8"))
    assert saved["version"] == CURRENT_VERSION and saved["engine"]["parallel_chats"] == 3
    assert "parallel_chats" not in saved


NEWER_FILE = "version = 99\n[engine]\nparallel_chats = 3\nhyperdrive = true\n[holo]\nmode = 1\n"


def test_newer_file_loads_what_is_understood_and_warns(store: SettingsStore) -> None:
    write_settings_file(store, NEWER_FILE)
    result = store.load()
    assert result.newer_file and result.file_version == 99
    assert result.settings["engine.parallel_chats"] == 3
    assert "written by a newer UniDesk (file format 99" in result.problems[0].message
    assert [problem.key for problem in result.problems[1:]] == ["engine.hyperdrive", "holo.mode"]
    assert "not known to this version" in result.problems[1].message
    assert result.backup_path is None


def test_newer_file_is_not_overwritten_without_asking(store: SettingsStore) -> None:
    original = write_settings_file(store, NEWER_FILE)
    settings = store.load().settings.with_changes({"ui.theme": "dark"})
    with pytest.raises(SettingsFileNewerError):
        store.save(settings)
    assert store.path.read_bytes() == original
    backup = store.save(settings, replace_newer=True)
    assert backup is not None and backup.read_bytes() == original
    assert backup.name == "settings.toml.v99-20261129-085500"
    reloaded = store.load()
    assert reloaded.problems == () and reloaded.settings == settings


def test_unreadable_file_is_reported_not_raised(store: SettingsStore) -> None:
    store.path.mkdir(parents=True)  # a folder where the file should be
    result = store.load()
    assert result.settings == Settings.defaults()
    assert len(result.problems) == 1 and "Could not read" in result.problems[0].message


def test_unidesk_home_puts_the_settings_file_under_the_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "portable"
    monkeypatch.setenv("UNIDESK_HOME", str(home))
    store = SettingsStore(AppPaths.resolve())
    assert store.path == home.resolve() / "config" / "settings.toml"
    store.save(Settings({"ui.language": "zh_CN"}))
    assert store.path.is_file()
    assert SettingsStore(AppPaths.resolve()).load().settings["ui.language"] == "zh_CN"


def test_explicit_home_wins_over_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNIDESK_HOME", str(tmp_path / "from-env"))
    store = SettingsStore(AppPaths.resolve(tmp_path / "from-flag"))
    assert store.path.is_relative_to((tmp_path / "from-flag").resolve())
