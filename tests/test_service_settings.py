"""The service's settings: one parser per setting for its option and its environment variable,
every process reading back exactly what ``triples serve`` decided, and a bad value refused in one
line naming the variable, before anything starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_service import ENV, free_port
from triples.doors.service.settings import (
    MIB,
    SETTINGS,
    ServiceSettings,
    SettingsError,
    from_environment,
    settings_of,
    variables,
)


def test_every_process_reads_back_exactly_the_settings_it_was_given(tmp_path: Path) -> None:
    store = tmp_path / "game.db"
    store.write_bytes(b"")
    chosen = ServiceSettings(
        time_limit=2.5,
        header_timeout=3.0,
        max_connections=9,
        cache_bytes=64 * MIB,
        daily_db=str(store),
        log_format="json",
        root_path="/triples",
        cors_origins=("https://a.example", "http://b.example:8080"),
        access_log=False,
        max_answer_bytes=4096,
    )
    written = variables(chosen)
    assert written["TRIPLES_TIME_LIMIT"] == "2.5" and written["TRIPLES_CACHE_MIB"] == "64"
    assert written["TRIPLES_CORS_ORIGIN"] == "https://a.example,http://b.example:8080"
    assert from_environment(written) == chosen
    assert from_environment({}) == ServiceSettings()


def test_each_setting_has_one_variable_and_options_are_named_for_their_variables() -> None:
    names = [setting.variable for setting in SETTINGS]
    assert len(names) == len(set(names))
    assert {setting.variable for setting in SETTINGS if setting.option == "--time-limit"} == {"TRIPLES_TIME_LIMIT"}
    assert {setting.variable for setting in SETTINGS if setting.option == "--db"} == {"TRIPLES_DB"}


@pytest.mark.parametrize(
    ("variable", "text", "message"),
    [
        ("TRIPLES_TIME_LIMIT", "-1", "TRIPLES_TIME_LIMIT=-1: expected a positive number of seconds"),
        ("TRIPLES_TIME_LIMIT", "nan", "TRIPLES_TIME_LIMIT=nan: expected a positive number of seconds"),
        ("TRIPLES_TIME_LIMIT", "abc", "TRIPLES_TIME_LIMIT=abc: expected a positive number of seconds"),
        ("TRIPLES_MAX_CONNECTIONS", "0", "TRIPLES_MAX_CONNECTIONS=0: expected a positive integer"),
        ("TRIPLES_LOG_FORMAT", "xml", "TRIPLES_LOG_FORMAT=xml: expected one of text, json"),
        ("TRIPLES_ROOT_PATH", "triples", "TRIPLES_ROOT_PATH=triples: expected a path prefix such as /triples"),
        (
            "TRIPLES_CORS_ORIGIN",
            "example.com",
            "TRIPLES_CORS_ORIGIN=example.com: expected an origin such as https://example.com",
        ),
        ("TRIPLES_DB", "typo.db", "TRIPLES_DB=typo.db: no such store (triples calendar --db typo.db makes one)"),
        ("TRIPLES_PLAYER_RATE", "inf", "TRIPLES_PLAYER_RATE=inf: expected a positive number"),
        ("TRIPLES_MAX_OPERATIONS", "-5", "TRIPLES_MAX_OPERATIONS=-5: expected a non-negative integer"),
    ],
    ids=lambda value: value if " " not in value else None,
)
def test_a_variable_that_does_not_parse_is_one_line_naming_it(variable: str, text: str, message: str) -> None:
    with pytest.raises(SettingsError) as refused:
        from_environment({variable: text})
    assert str(refused.value) == message


def test_an_option_wins_over_its_variable() -> None:
    import argparse

    from triples.doors.service.settings import add_options

    parser = argparse.ArgumentParser()
    add_options(parser)
    args = parser.parse_args(["--time-limit", "3", "--cors-origin", "https://a.example"])
    settings = settings_of(args, {"TRIPLES_TIME_LIMIT": "7", "TRIPLES_IDLE_TIMEOUT": "4"})
    assert (settings.time_limit, settings.idle_timeout, settings.cors_origins) == (3.0, 4.0, ("https://a.example",))


def serve(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "triples", "serve", "--port", str(free_port()), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env or ENV, cwd=cwd, timeout=60)


@pytest.mark.parametrize("text", ["-1", "nan", "abc"])
def test_serve_refuses_to_start_on_a_bad_variable(text: str) -> None:
    done = serve(env={**ENV, "TRIPLES_TIME_LIMIT": text})
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"triples serve: error: TRIPLES_TIME_LIMIT={text}: expected a positive number of seconds\n"


def test_serve_refuses_a_missing_store_and_makes_no_file(tmp_path: Path) -> None:
    done = serve("--db", "typo.db", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (
        2,
        "triples serve: error: argument --db: typo.db: no such store (triples calendar --db typo.db makes one)\n",
    )
    assert list(tmp_path.iterdir()) == []
