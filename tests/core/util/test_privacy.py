"""Library telemetry is switched off unless the user set the variable themselves."""

from __future__ import annotations

from app.core.util.privacy import TELEMETRY_OFF, disable_library_telemetry


def test_sets_every_opt_out() -> None:
    environment: dict[str, str] = {}
    disable_library_telemetry(environment)
    assert environment == TELEMETRY_OFF
    assert environment["ANONYMIZED_TELEMETRY"] == "False"
    assert environment["HF_HUB_DISABLE_TELEMETRY"] == "1"


def test_keeps_a_value_the_user_chose() -> None:
    environment = {"TOKENIZERS_PARALLELISM": "true"}
    disable_library_telemetry(environment)
    assert environment["TOKENIZERS_PARALLELISM"] == "true"
