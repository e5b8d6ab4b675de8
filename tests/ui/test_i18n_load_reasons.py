"""Why a model did not load or answer, the notes on a loaded one, and why an import was refused speak Chinese in
the Chinese window (issue 15, item 7): the remote server's, vLLM's and llama.cpp's reasons, damaged safetensors and
GGUF files, the status bar's tooltip ("Threads: 1", "GPU layers: …") and line, a file that is no conversation
export; a reason and its hint are joined without an ASCII space after "。"."""

from __future__ import annotations

import json
import socket
import struct
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QToolTip, QWidget

from app.context import AppContext
from app.core.chat.errors import ImportFormatError
from app.core.chat.export import import_from_file
from app.core.chat.store import ConversationStore
from app.core.engines.backends.llamacpp import LlamaCppEngine
from app.core.engines.backends.remote import RemoteEngine
from app.core.engines.backends.vllm import _load_error
from app.core.engines.backends.vllm_memory import size_kv_cache
from app.core.engines.base import EngineConfig, EngineError, ModelLoadError, RemoteTarget
from app.core.engines.chat_template import ChatTemplate, ChatTemplateError
from app.core.engines.manager import EngineManager, ManagerState
from app.core.engines.requests import ChatMessage, ChatRequest
from app.core.engines.unified_memory import EnginePool
from app.core.planner import read_model_metadata
from app.core.planner.errors import ModelMetadataError
from app.core.services.api.server import ApiServer
from app.core.util.errors import UserFacingError
from app.ui.i18n import LanguageSwitcher, render
from tests.ui.chat_support import ChatWindows
from tests.ui.conftest import fake_machine
from tests.ui.core_texts_support import data_in, english_words_left
from tests.ui.test_i18n_main_views import TECHNICAL_NAMES

pytestmark = pytest.mark.gui

LOAD_TIMEOUT_MS = 60_000


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def in_chinese(switcher: LanguageSwitcher, error: BaseException) -> str:
    assert switcher.apply("zh_CN") == "zh_CN"
    return render(str(error))


def assert_chinese(shown: str, error: BaseException, *names: str) -> None:
    """No English left but the error's own data (names, paths, a server's message) and kept words; no "。 "."""
    assert english_words_left([shown], [*data_in(str(error)), *names, *TECHNICAL_NAMES]) == [], shown
    assert "。 " not in shown, shown


def test_a_remote_server_that_cannot_be_reached_is_said_in_chinese(switcher: LanguageSwitcher) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(ModelLoadError) as caught:
        RemoteEngine().load(EngineConfig(Path(""), 1024, remote=RemoteTarget(url, "")))
    assert str(caught.value).startswith(f"Cannot reach the server at {url}: nothing is listening there")

    shown = in_chinese(switcher, caught.value)

    assert shown.startswith(f"无法连接 {url} 上的服务器：该地址没有服务在监听（连接被拒绝）。请检查")
    assert_chinese(shown, caught.value)


def test_a_remote_address_that_is_no_address_is_said_in_chinese(switcher: LanguageSwitcher) -> None:
    with pytest.raises(ModelLoadError) as caught:
        RemoteEngine().load(EngineConfig(Path(""), 1024, remote=RemoteTarget("ftp://nowhere", "")))

    shown = in_chinese(switcher, caught.value)

    assert shown == "“ftp://nowhere”不是服务器地址。请使用类似 http://192.168.1.20:8000/v1 的地址。"
    assert_chinese(shown, caught.value, "ftp")


def test_vllm_running_out_of_memory_is_said_in_chinese(switcher: LanguageSwitcher, tmp_path: Path) -> None:
    config = EngineConfig(tmp_path / "qwen", 4096)
    error = _load_error(config, RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"))
    assert error.cause == "out_of_memory"

    shown = in_chinese(switcher, error)

    assert shown.startswith("vLLM 加载 qwen 时内存不足：RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB。")
    assert shown.endswith("请缩短上下文或减少并行对话，或关闭其他程序。")
    assert_chinese(shown, error)


def write_safetensors(folder: Path, header_length: int, header: bytes) -> None:
    """A model folder whose weights file says its header is ``header_length`` bytes long and holds ``header``."""
    folder.mkdir()
    config = {"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 64,
              "vocab_size": 100, "torch_dtype": "float16"}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", header_length) + header)


@pytest.mark.parametrize(("length", "header", "chinese"), [
    (64, b"{}", "model.safetensors 在 safetensors 文件头内被截断。"),
    (8, b"not json", "model.safetensors 的 safetensors 文件头无法读取。"),
])
def test_a_damaged_safetensors_file_is_said_in_chinese(
        switcher: LanguageSwitcher, tmp_path: Path, length: int, header: bytes, chinese: str) -> None:
    folder = tmp_path / "damaged"
    write_safetensors(folder, length, header)
    with pytest.raises(ModelMetadataError) as caught:
        read_model_metadata(folder)

    shown = in_chinese(switcher, caught.value)

    assert shown == chinese + "请重新下载模型；有一个 .safetensors 文件已损坏。"
    assert_chinese(shown, caught.value, "safetensors")


def test_a_config_without_the_models_shape_is_said_in_chinese(switcher: LanguageSwitcher, tmp_path: Path) -> None:
    folder = tmp_path / "shapeless"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "bert"}), encoding="utf-8")
    with pytest.raises(ModelMetadataError) as caught:
        read_model_metadata(folder)

    shown = in_chinese(switcher, caught.value)

    assert "没有说明模型的层数、注意力头数和隐藏单元数。规划器需要" in shown
    assert_chinese(shown, caught.value, "model_type", "config.json", "LLM", "num_hidden_layers",
                   "num_attention_heads", "hidden_size")


def test_the_status_bar_tooltip_notes_speak_chinese(
        qtbot: Any, chat_windows: ChatWindows, tiny_gguf: Path, switcher: LanguageSwitcher, screenshot: Any) -> None:
    window = chat_windows.open()
    window.resize(1200, 760)
    assert window.load_model(tiny_gguf)
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY, timeout=LOAD_TIMEOUT_MS)
    english = window.model_status.text.toolTip()
    assert "Threads: " in english and "Flash attention: " in english

    assert switcher.apply("zh_CN") == "zh_CN"
    qtbot.waitUntil(lambda: "线程数：" in window.model_status.text.toolTip(), timeout=LOAD_TIMEOUT_MS)

    tooltip = window.model_status.text.toolTip()
    line = window.model_status.text.text()
    assert "（" in line and " （" not in line, line  # the backend's reason in full-width brackets, no space before
    assert "Threads" not in tooltip and "GPU layers" not in tooltip and "Flash attention" not in tooltip
    assert "KV 缓存：" in tooltip and "Flash Attention：" in tooltip
    loaded = window.services.engine_manager.status().loaded
    assert loaded is not None
    notes = [render(note) for note in loaded.notes]
    names = [loaded.model_name, "Flash", "Attention", *(data for note in loaded.notes for data in data_in(note))]
    assert english_words_left(notes, names) == [], notes
    screenshot(window, "status-notes-zh")
    label = window.model_status.text
    QToolTip.showText(label.mapToGlobal(label.rect().topLeft()), tooltip, label)
    qtbot.waitUntil(lambda: tooltip_label() is not None, timeout=10_000)
    screenshot(tooltip_label(), "status-notes-tooltip-zh")
    QToolTip.hideText()


def tooltip_label() -> QWidget | None:
    """The tooltip Qt shows now (its own top-level label), if one is visible."""
    return next((widget for widget in QApplication.topLevelWidgets()
                 if widget.objectName() == "qtooltip_label" and widget.isVisible()), None)


def test_a_chat_template_that_refuses_the_conversation_is_said_in_chinese(switcher: LanguageSwitcher) -> None:
    template = ChatTemplate("{{ raise_exception('Conversation roles must alternate user/assistant') }}")
    with pytest.raises(ChatTemplateError) as caught:
        template.render([ChatMessage("user", "hi"), ChatMessage("user", "again")])

    shown = in_chinese(switcher, caught.value)

    assert shown.startswith("模型的对话模板拒绝了这段对话：Conversation roles must alternate")
    assert shown.endswith("请检查角色顺序（有些模型要求用户和助手交替发言）。")
    assert_chinese(shown, caught.value)


def test_a_prompt_longer_than_the_context_is_refused_in_chinese(switcher: LanguageSwitcher, tiny_gguf: Path) -> None:
    engine = LlamaCppEngine()
    engine.load(EngineConfig(tiny_gguf, 64, threads=1, warm_up=False))
    try:
        stream = engine.submit(ChatRequest((ChatMessage("user", "word " * 200),)))
        assert stream.wait(60)
        error = stream.error
    finally:
        engine.unload()
    assert isinstance(error, EngineError) and "tokens long, but a chat's context holds only" in str(error)

    shown = in_chinese(switcher, error)

    assert shown.startswith("提示长 ") and shown.endswith("请缩短对话，或在设置中提高上下文长度。")
    assert_chinese(shown, error)


@pytest.mark.parametrize(("content", "chinese"), [
    (b"not json", "notes.json 不是 UniDesk 导出的对话：它不是 JSON 文本"),
    (b'{"format": "something else"}', "这不是 UniDesk 导出的对话：它的 format 字段缺失或不同。"),
])
def test_a_file_that_is_no_conversation_export_is_refused_in_chinese(
        switcher: LanguageSwitcher, tmp_path: Path, content: bytes, chinese: str) -> None:
    path = tmp_path / "notes.json"
    path.write_bytes(content)
    with ConversationStore(tmp_path / "chat.db") as store, pytest.raises(ImportFormatError) as caught:
        import_from_file(store, path)

    shown = in_chinese(switcher, caught.value)

    assert shown.startswith(chinese) and shown.endswith("请选择从 UniDesk 导出的 .json 文件。")
    assert_chinese(shown, caught.value, "format", ".json")


def test_a_local_api_port_in_use_is_said_in_chinese(switcher: LanguageSwitcher, app_context: AppContext) -> None:
    manager = EngineManager(fake_machine, lambda: app_context.settings)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = int(taken.getsockname()[1])
        with pytest.raises(UserFacingError) as caught:
            ApiServer(manager, "token", port=port).start()

    shown = in_chinese(switcher, caught.value)

    assert shown == (f"127.0.0.1 上的端口 {port} 已被占用。"
                     "请选择其他端口（unidesk serve --port N，或设置中的 api.port）。")
    assert_chinese(shown, caught.value, "unidesk", "serve", "port", "api.port")


def test_vllm_refusing_a_kv_cache_that_leaves_too_little_memory_is_said_in_chinese(
        switcher: LanguageSwitcher) -> None:
    pool = EnginePool("unified", total_bytes=16 << 30, available_bytes=6 << 30, ram_available_bytes=6 << 30)
    with pytest.raises(ModelLoadError) as caught:
        size_kv_cache(pool, weights_bytes=4 << 30, kv_cache_bytes=4 << 30)

    shown = in_chinese(switcher, caught.value)

    assert shown.startswith("模型连同 4.0 GiB 的 KV 缓存将占用共享内存池中的")
    assert shown.endswith("请缩短上下文或减少并行对话，或关闭其他程序。")
    assert_chinese(shown, caught.value)


@pytest.mark.parametrize(("kept", "detail"), [
    (40, "文件头声称有 "), (548, "llama.vocab_size 的类型需要 4 字节"), (622, "一个键声称有 21 字节")])
def test_a_gguf_cut_inside_its_header_is_said_in_chinese(
        switcher: LanguageSwitcher, tiny_gguf: Path, tmp_path: Path, kept: int, detail: str) -> None:
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(tiny_gguf.read_bytes()[:kept])  # the counts claim more than is left; a key's value cut short
    with pytest.raises(ModelMetadataError) as caught:
        read_model_metadata(cut)
    assert "cut.gguf is truncated or damaged: its GGUF header cannot be read (" in str(caught.value)

    shown = in_chinese(switcher, caught.value)

    assert shown.startswith("cut.gguf 不完整或已损坏：无法读取其 GGUF 文件头（"), shown
    assert detail in shown, shown  # the format's own words are in Chinese too
    assert_chinese(shown, caught.value)
