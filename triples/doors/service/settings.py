"""The service's settings: one table of them, each with its option of ``triples serve``, its
environment variable, and the one parser that checks both.

An option given on the command line wins; else its variable (``TRIPLES_TIME_LIMIT=5``) when
set; else the default. A value that does not parse refuses to start, in one line naming the
option or the variable (``TRIPLES_TIME_LIMIT=-1: expected a positive number of seconds``).
``triples serve`` hands every setting to its server processes in these variables, and each
process reads them back with the same parsers (``from_environment``), so a worker never runs
with a value the command would have refused.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from triples.doors.kit import options
from triples.doors.service.limits import PlayLimits

MIB = 1024 * 1024
LOG_FORMATS = ("text", "json")


class SettingsError(Exception):
    """A setting that does not parse: its option or variable, its value, and what is wanted."""


class ServiceSettings(BaseModel):
    """Everything a server process needs to know (the defaults are the documented ones)."""

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")

    max_body_bytes: int = Field(default=MIB, ge=1)
    max_operations: int = Field(default=10_000, ge=0)
    time_limit: float = Field(default=10.0, gt=0)  # seconds one request's operations may run
    max_running: int = Field(default=1, ge=1)  # costly requests computing at once
    max_waiting: int = Field(default=16, ge=0)  # costly requests waiting for their turn
    max_wait: float = Field(default=2.0, gt=0)  # seconds a request may wait before a 503
    max_answer_bytes: int = Field(default=32 * MIB, ge=1)  # the longest answer POST /run builds
    header_timeout: float = Field(default=10.0, gt=0)  # seconds from a request's first byte to its last header
    idle_timeout: float = Field(default=5.0, gt=0)  # seconds a connection may send nothing (between requests too)
    max_connections: int = Field(default=256, ge=1)  # connections open at once
    cache_bytes: int = Field(default=256 * MIB, ge=1)  # what the engines' caches may hold in each process
    daily_db: str | None = None  # the store of GET /daily and the players' game (triples serve --db)
    limits: PlayLimits = PlayLimits()  # how often players and addresses may call the players' game
    log_format: str = "text"  # text or json lines
    access_log: bool = True  # a line per request
    root_path: str = ""  # the prefix a reverse proxy serves the service under ("/triples")
    cors_origins: tuple[str, ...] = ()  # other sites whose pages may call the service
    public: bool = False  # serve only what a player needs (the internet-facing service)
    metrics_token: str | None = None  # GET /metrics needs it as a bearer token (public: off without one)


def root_path(text: str) -> str:
    """A path prefix: ``/`` and segments, no trailing ``/`` (empty: none)."""
    stripped = text.strip()
    if stripped in ("", "/"):
        return ""
    if not re.fullmatch(r"(/[A-Za-z0-9._~-]+)+/?", stripped):
        raise argparse.ArgumentTypeError(f"{text}: expected a path prefix such as /triples")
    return stripped.rstrip("/")


def origin(text: str) -> str:
    """A web origin: scheme, host and optional port, nothing after."""
    if not re.fullmatch(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?", text.strip()):
        raise argparse.ArgumentTypeError(f"{text}: expected an origin such as https://example.com")
    return text.strip()


def origins(text: str) -> tuple[str, ...]:
    return tuple(origin(part) for part in text.split(",") if part.strip())


def log_format(text: str) -> str:
    if text not in LOG_FORMATS:
        raise argparse.ArgumentTypeError(f"{text}: expected one of {', '.join(LOG_FORMATS)}")
    return text


def token(text: str) -> str:
    """A bearer token: at least 16 printable characters, no space."""
    if not re.fullmatch(r"[\x21-\x7e]{16,}", text):
        raise argparse.ArgumentTypeError("expected a token of at least 16 printable characters, without spaces")
    return text


def yes_no(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"{text}: expected yes or no")


def store(text: str) -> str:
    """A store the service serves, which must exist (the service never makes one): a SQLite
    file, or a database at a ``postgresql://`` URL that holds a store. Its name as every
    process must be given it (a file by its absolute path)."""
    from triples.store import StoreError, db_for_processes, shown, store_exists

    try:
        exists = store_exists(text)
    except StoreError as exc:  # the store's line names it as "--db NAME: ...": here it is the value's
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--db ")) from None
    if not exists:
        raise argparse.ArgumentTypeError(
            f"{shown(text)}: no such store (triples calendar --db {shown(text)} makes one)"
        )
    return db_for_processes(text)


@dataclass(frozen=True)
class Setting:
    """One setting: the field it fills (``limits.player_rate`` for a field of ``PlayLimits``),
    its environment variable, its parser, and its option of ``triples serve`` if it has one."""

    field: str
    variable: str
    parse: Callable[[str], Any]
    option: str | None = None
    metavar: str | None = None
    help: str = ""
    scale: int = 1  # the option's unit in the field's (--cache-mib: MiB in bytes)

    @property
    def dest(self) -> str:
        assert self.option is not None
        return self.option.removeprefix("--").replace("-", "_")

    def default(self) -> Any:
        owner, _, name = self.field.rpartition(".")
        found: Any = PlayLimits() if owner == "limits" else ServiceSettings()
        return getattr(found, name)

    def read(self, text: str) -> Any:
        """The field's value of ``text``; SettingsError naming the variable when it does not parse."""
        try:
            return self.parse(text) * self.scale if self.scale != 1 else self.parse(text)
        except argparse.ArgumentTypeError as exc:
            raise SettingsError(f"{self.variable}={text}: {message_of(exc, text)}") from None

    def written(self, value: Any) -> str:
        """``value`` as its variable holds it."""
        if isinstance(value, tuple):
            return ",".join(value)
        if isinstance(value, bool):
            return "yes" if value else "no"
        if self.scale != 1:
            return str(value // self.scale)
        return value if isinstance(value, str) else repr(value)


def message_of(exc: argparse.ArgumentTypeError, text: str) -> str:
    """The parser's refusal without the value it begins with (the variable's line names it)."""
    message = str(exc)
    return message.removeprefix(f"{text}: ") if message.startswith(f"{text}: ") else message


def _setting(field: str, parse: Callable[[str], Any], option: str | None = None, **more: Any) -> Setting:
    variable = "TRIPLES_" + (option.removeprefix("--") if option else field.rpartition(".")[2]).upper().replace(
        "-", "_"
    )
    return Setting(field, variable, parse, option, **more)


SETTINGS: tuple[Setting, ...] = (
    _setting("time_limit", options.positive_seconds, "--time-limit", metavar="SECONDS",
             help="a request still running after this long is answered 503 and its work stops"),
    _setting("header_timeout", options.positive_seconds, "--header-timeout", metavar="SECONDS",
             help="a request whose headers are not all in this long after its first byte is answered 408"),
    _setting("idle_timeout", options.positive_seconds, "--idle-timeout", metavar="SECONDS",
             help="a connection that sends nothing for this long, between requests or in a body, is closed"),
    _setting("max_connections", options.positive_int, "--max-connections", metavar="N",
             help="connections open at once; one more closes the one idle longest, else gets 503"),
    _setting("cache_bytes", options.positive_int, "--cache-mib", metavar="MIB", scale=MIB,
             help="what the engines' tables and memos may hold in each server process, in MiB"),
    Setting("daily_db", "TRIPLES_DB", store, "--db", metavar="FILE",
             help="serve GET /daily from the calendars in this store (triples calendar), and the players' game; "
             "the store must exist"),
    _setting("limits.player_rate", options.positive_rate, "--player-rate", metavar="R",
             help="requests a second one player may make to /play"),
    _setting("limits.address_rate", options.positive_rate, "--address-rate", metavar="R",
             help="requests a second one client address may make to /play and /players"),
    _setting("limits.new_players_per_hour", options.positive_rate, "--new-players", metavar="N",
             help="players one client address may make an hour"),
    _setting("log_format", log_format, "--log-format", metavar="FORMAT",
             help="text (a line for a person) or json (one object a line, for a machine)"),
    _setting("root_path", root_path, "--root-path", metavar="PREFIX",
             help="the path prefix a reverse proxy serves the service under, such as /triples"),
    _setting("cors_origins", origins, "--cors-origin", metavar="ORIGIN",
             help="an origin whose pages may call the service from the browser (repeatable)"),
    _setting("metrics_token", token, "--metrics-token", metavar="TOKEN",
             help="GET /metrics then needs Authorization: Bearer TOKEN (without it the public service has no "
             "/metrics); prefer the variable, which ps does not show"),
    _setting("public", yes_no, "--public",
             help="serve only what a player needs, for the internet: the players' routes, /daily, /health and "
             "the players' page at /; POST /run, the explorer and /metrics (without --metrics-token) are 404"),
    _setting("access_log", yes_no),
    _setting("max_body_bytes", options.positive_int),
    _setting("max_operations", options.non_negative_int),
    _setting("max_running", options.positive_int),
    _setting("max_waiting", options.non_negative_int),
    _setting("max_wait", options.positive_seconds),
    _setting("max_answer_bytes", options.positive_int),
)  # fmt: skip
BY_VARIABLE: Mapping[str, Setting] = {setting.variable: setting for setting in SETTINGS}


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of the settings that have one; each defaults to its variable, then its default."""
    for setting in SETTINGS:
        if setting.option is None:
            continue
        default = setting.default()
        shown = setting.written(default) if default not in (None, "", ()) else "none"
        help = f"{setting.help} (default: {shown}; or {setting.variable})"
        if setting.field == "metrics_token":
            help = f"{setting.help} (default: none; or {setting.variable})"
        if setting.field == "cors_origins":
            parser.add_argument(setting.option, action="append", metavar=setting.metavar, help=help, type=origin)
        elif setting.field == "public":
            parser.add_argument(setting.option, action="store_const", const=True, help=help)
        else:
            parser.add_argument(setting.option, metavar=setting.metavar, help=help, type=setting.parse)


def settings_of(args: argparse.Namespace | None, environ: Mapping[str, str]) -> ServiceSettings:
    """The settings of the given options, the environment's variables for the rest, the
    defaults for what neither gives; SettingsError in one line for a variable that does not
    parse (an option that does not was refused by argparse already)."""
    fields: dict[str, Any] = {}
    limits: dict[str, Any] = {}
    for setting in SETTINGS:
        given = None if args is None or setting.option is None else getattr(args, setting.dest, None)
        if given is not None:
            value = tuple(given) if setting.field == "cors_origins" else given
            if setting.scale != 1:
                value *= setting.scale
        elif environ.get(setting.variable, ""):  # set and not empty (VAR= in a shell unsets it here)
            value = setting.read(environ[setting.variable])
        else:
            continue
        owner, _, name = setting.field.rpartition(".")
        (limits if owner == "limits" else fields)[name] = value
    if limits:
        fields["limits"] = PlayLimits(**limits)
    return ServiceSettings(**fields)


def from_environment(environ: Mapping[str, str] | None = None) -> ServiceSettings:
    """What a server process runs with: its settings from the variables ``triples serve`` set."""
    return settings_of(None, os.environ if environ is None else environ)


def variables(settings: ServiceSettings) -> dict[str, str]:
    """The variables that give ``from_environment`` exactly these settings."""
    found: dict[str, str] = {}
    for setting in SETTINGS:
        owner, _, name = setting.field.rpartition(".")
        value = getattr(settings.limits if owner == "limits" else settings, name)
        if value is not None:
            found[setting.variable] = setting.written(value)
    return found
