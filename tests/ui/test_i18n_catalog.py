"""The Chinese catalogue: every translatable string of app/ui is in it and translated, and the .qm is built from it."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = REPO_ROOT / "resources" / "translations" / "update_translations.py"
PLACEHOLDER = re.compile(r"\{[^}]*\}|%[vm]")
# translate() calls whose text is a variable on purpose: their strings reach lupdate another way.
VARIABLE_TEXT_ALLOWED = {
    ("app/ui/settings/declaration_text.py", "declared"): "app/ui/declared_texts.py lists the declared texts",
    ("app/ui/shortcuts.py", "translated_description"): "SHORTCUTS marks its texts with QT_TRANSLATE_NOOP",
    ("app/ui/i18n.py", "translate"): "the wrapper; its callers pass literals",
    ("app/ui/i18n.py", "render"): "the core's Texts: app/core marks their templates with QT_TRANSLATE_NOOP",
}


@pytest.fixture(scope="module")
def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("update_translations", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _messages(ts_file: Path) -> dict[tuple[str, str], str]:
    found = {}
    for context in ElementTree.parse(ts_file).getroot().iter("context"):
        for message in context.iter("message"):
            translation = message.find("translation")
            text = translation.text if translation is not None and translation.get("type") is None else None
            found[(context.findtext("name") or "", message.findtext("source") or "")] = text or ""
    return found


def test_every_string_has_a_finished_chinese_translation(script: ModuleType) -> None:
    assert script.unfinished(script.TS_FILE) == []
    messages = _messages(script.TS_FILE)
    assert len(messages) > 400
    assert messages[("KnowledgeBasePanel", "Add files…")] == "添加文件…"


def test_every_translation_is_the_one_the_memory_holds(script: ModuleType, tmp_path: Path) -> None:
    """A translation corrected in the memory reaches the catalogue (the script once filled only new strings)."""
    memory = json.loads(script.MEMORY_FILE.read_text(encoding="utf-8"))["translations"]
    stale = [(context, source) for (context, source), text in _messages(script.TS_FILE).items()
             if memory.get(f"{context}|{source}", memory.get(source, text)) != text]
    assert stale == [], "run resources/translations/update_translations.py"
    corrected = tmp_path / "corrected.ts"
    shutil.copy(script.TS_FILE, corrected)
    edited = tmp_path / "memory.json"
    document = json.loads(script.MEMORY_FILE.read_text(encoding="utf-8"))
    document["translations"]["KnowledgeBasePanel|Add files…"] = "添加一些文件…"
    edited.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    assert script.fill_from_memory(corrected, edited) == 1
    assert _messages(corrected)[("KnowledgeBasePanel", "Add files…")] == "添加一些文件…"


def test_the_catalogue_holds_exactly_the_strings_of_app_ui(script: ModuleType, tmp_path: Path) -> None:
    """lupdate over today's app/ui adds nothing to the committed .ts and drops nothing from it."""
    fresh = tmp_path / "fresh.ts"
    shutil.copy(script.TS_FILE, fresh)
    script.run_lupdate(fresh)
    committed, extracted = _messages(script.TS_FILE), _messages(fresh)
    new = sorted(set(extracted) - set(committed))
    gone = sorted(set(committed) - set(extracted))
    assert new == [], "strings without translation; run resources/translations/update_translations.py"
    assert gone == [], "strings no longer in app/ui; run resources/translations/update_translations.py"


def test_the_qm_is_built_from_the_ts(script: ModuleType, tmp_path: Path) -> None:
    rebuilt = tmp_path / "rebuilt.qm"
    script.run_lrelease(script.TS_FILE, rebuilt)
    assert rebuilt.read_bytes() == script.QM_FILE.read_bytes(), "run resources/translations/update_translations.py"


def test_the_declared_setting_texts_module_is_current(script: ModuleType) -> None:
    assert script.DECLARED_MODULE.read_text(encoding="utf-8") == script.declared_module_source()
    from app.core.config.declarations import SETTINGS

    texts = script.declared_texts()
    assert all(spec.title in texts and spec.description in texts for spec in SETTINGS)


def test_translations_keep_placeholders_and_accelerators(script: ModuleType) -> None:
    for (context, source), translation in _messages(script.TS_FILE).items():
        assert sorted(PLACEHOLDER.findall(source)) == sorted(PLACEHOLDER.findall(translation)), (context, source)
        accelerator = re.search(r"&(\w)", source)
        if accelerator:
            assert f"(&{accelerator.group(1).upper()})" in translation, (context, source)


def _variable_translate_calls(path: Path) -> list[str]:
    """``translate(...)`` calls in ``path`` whose context or text is not a literal string."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    relative = path.relative_to(REPO_ROOT).as_posix()
    found = []
    for function in [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]:
        for call in [node for node in ast.walk(function) if isinstance(node, ast.Call)]:
            name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
            if name != "translate" or (relative, function.name) in VARIABLE_TEXT_ALLOWED:
                continue
            literal = [isinstance(arg, ast.Constant) and isinstance(arg.value, str) for arg in call.args[:2]]
            if not all(literal) or len(literal) < 2:
                found.append(f"{relative}:{call.lineno} in {function.name}()")
    return found


def test_translate_calls_name_context_and_text_literally() -> None:
    """pyside6-lupdate extracts only literal strings: a context held in a variable is never translated."""
    offenders = [hit for path in sorted((REPO_ROOT / "app" / "ui").rglob("*.py"))
                 for hit in _variable_translate_calls(path)]
    assert offenders == []
