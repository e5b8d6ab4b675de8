"""Logging goes to a rotating file under the log folder; --verbose adds the console."""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

import pytest

from app.core.util.logging_setup import LOG_FILE_NAME, UNPROPAGATED_LOGGERS, configure_logging


def _our_handlers(logger: logging.Logger | None = None) -> list[logging.Handler]:
    return [h for h in (logger or logging.getLogger()).handlers if getattr(h, "_unidesk_handler", False)]


@pytest.fixture(autouse=True)
def _remove_handlers_after() -> object:
    yield
    for logger in (logging.getLogger(), *map(logging.getLogger, UNPROPAGATED_LOGGERS)):
        for handler in _our_handlers(logger):
            logger.removeHandler(handler)
            handler.close()


def test_libraries_that_keep_their_records_from_the_root_reach_the_file_once(tmp_path: Path) -> None:
    log_file = configure_logging(tmp_path)
    library = logging.getLogger("transformers")
    propagates = library.propagate
    try:
        library.propagate = False  # as transformers sets its top logger
        logging.getLogger("transformers.modeling_utils").warning("weights not initialised")
        library.propagate = True  # a user who turned its propagation on
        logging.getLogger("transformers.modeling_utils").warning("second note")
    finally:
        library.propagate = propagates
    for handler in _our_handlers():
        handler.flush()
    text = log_file.read_text(encoding="utf-8")
    assert text.count("weights not initialised") == 1 and text.count("second note") == 1
    configure_logging(tmp_path)  # reconfiguring replaces the library's handler too
    assert len(_our_handlers(library)) == 1


def test_logs_go_to_a_rotating_file(tmp_path: Path) -> None:
    log_file = configure_logging(tmp_path / "logs")
    assert log_file == tmp_path / "logs" / LOG_FILE_NAME
    logging.getLogger("app.test").info("hello from the test")
    for handler in _our_handlers():
        handler.flush()
    assert "hello from the test" in log_file.read_text(encoding="utf-8")
    file_handlers = [h for h in _our_handlers() if isinstance(h, logging.handlers.RotatingFileHandler)]
    assert len(file_handlers) == 1 and file_handlers[0].maxBytes > 0 and file_handlers[0].backupCount > 0


def test_verbose_adds_a_console_handler_and_reconfiguring_does_not_duplicate(tmp_path: Path) -> None:
    configure_logging(tmp_path, verbose=False)
    assert len(_our_handlers()) == 1
    configure_logging(tmp_path, verbose=True)
    handlers = _our_handlers()
    assert len(handlers) == 2
    assert any(type(h) is logging.StreamHandler for h in handlers)


def test_the_file_keeps_info_and_leaves_debug_out_unless_verbose(tmp_path: Path) -> None:
    log_file = configure_logging(tmp_path)
    logging.getLogger("app.test").debug("a debug detail")
    logging.getLogger("app.test").info("an info line")
    for handler in _our_handlers():
        handler.flush()
    text = log_file.read_text(encoding="utf-8")
    assert "an info line" in text and "a debug detail" not in text

    configure_logging(tmp_path, verbose=True)
    logging.getLogger("app.test").debug("a verbose detail")
    for handler in _our_handlers():
        handler.flush()
    assert "a verbose detail" in log_file.read_text(encoding="utf-8")


def test_detailed_logs_debug_to_the_file_without_a_console(tmp_path: Path) -> None:
    log_file = configure_logging(tmp_path, detailed=True)
    assert len(_our_handlers()) == 1
    logging.getLogger("app.test").debug("a detailed line")
    for handler in _our_handlers():
        handler.flush()
    assert "a detailed line" in log_file.read_text(encoding="utf-8")


def test_the_detailed_log_setting_turns_on_debug_at_start(tmp_path: Path) -> None:
    from app.main import build_context

    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "settings.toml").write_text("[diagnostics]\ndetailed_log = true\n", encoding="utf-8")
    build_context(str(tmp_path), verbose=False)
    assert logging.getLogger().level == logging.DEBUG
    build_context(str(tmp_path / "other"), verbose=False)
    assert logging.getLogger().level == logging.INFO
