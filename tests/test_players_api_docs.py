"""The examples of docs/players-api.md, run against a real service.

The page's ``shell-session`` fences are transcripts as the ``console`` ones of tests/test_docs.py
are (``$ `` commands, their output after them, ``...`` for what changes), but they talk to a
service: here ``triples serve --db`` over a store with a secret deal today (the deck of seed 1,
so the tables are the worked examples'), and ``localhost:8000`` in a command is that service's
address. The commands of the page run in order in one bash, so a variable one sets (a token)
is there for the next.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install -e '.[serve]'")

from tests.players_server import make_store, serving
from tests.test_docs import ROOT, Block, commands_of, output_matches, shell_environment, trimmed

PAGE = ROOT / "docs" / "players-api.md"
FENCE = re.compile(r"^```shell-session\s*$")
DONE = "__the command is done__"


def transcripts(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    for number, line in enumerate(lines):
        if FENCE.match(line):
            end = next(index for index in range(number + 1, len(lines)) if lines[index].startswith("```"))
            blocks.append(Block(page, number + 1, "shell-session", tuple(lines[number + 1 : end])))
    return blocks


class Shell:
    """One bash for the whole page."""

    def __init__(self, directory: Path) -> None:
        self.bash = subprocess.Popen(
            ["bash"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            cwd=directory, env=shell_environment(), text=True,
        )  # fmt: skip

    def run(self, command: str) -> list[str]:
        assert self.bash.stdin is not None and self.bash.stdout is not None
        self.bash.stdin.write(f"{command}\nprintf '\\n%s\\n' '{DONE}'\n")
        self.bash.stdin.flush()
        output: list[str] = []
        for line in self.bash.stdout:
            if line.rstrip("\n") == DONE:
                return trimmed(output)
            output.append(line.rstrip("\n"))
        raise AssertionError(f"bash ended during: {command}")

    def close(self) -> None:
        assert self.bash.stdin is not None
        self.bash.stdin.close()
        self.bash.wait(timeout=30)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Shell]]:
    directory = tmp_path_factory.mktemp("players-api")
    make_store(directory / "game.db")
    with serving(directory / "game.db") as port:
        shell = Shell(directory)
        yield port, shell
        shell.close()


def test_the_page_has_transcripts() -> None:
    assert len(transcripts(PAGE)) >= 8


@pytest.mark.parametrize("block", transcripts(PAGE), ids=lambda block: block.name)
def test_example(block: Block, service: tuple[int, Shell]) -> None:
    port, shell = service
    failures = []
    for command in commands_of(block):
        actual = shell.run(command.text.replace("localhost:8000", f"127.0.0.1:{port}"))
        expected = trimmed(command.expected)
        if not output_matches(expected, actual):
            failures.append(
                f"$ {command.text}\n--- expected\n" + "\n".join(expected) + "\n--- actual\n" + "\n".join(actual)
            )
    assert not failures, "\n\n".join(failures)
