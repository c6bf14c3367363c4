"""Every example in README.md and docs/*.md runs and must print what the page shows.

The convention (what a page author writes):

- A fence whose info string is ``console`` is checked. A line starting with ``$ `` is a shell
  command, run by bash with the ``triples`` of this environment on PATH, in one fresh temporary
  directory per page; blocks run in page order, so a block may use files an earlier block on
  the same page wrote. The lines after a command, up to the next ``$ `` line, are its expected
  output: stdout and stderr merged (as ``2>&1``), compared line by line with trailing
  whitespace stripped. A line that is exactly ``...`` matches any number of lines; ``...``
  inside a line matches any text within that line. The exit status is not compared. A command
  with a heredoc (``<<'EOF'``) takes the lines after it up to the terminator line.
- A fence whose info string is ``pycon`` is a doctest, run with ELLIPSIS and
  NORMALIZE_WHITESPACE; the ``pycon`` blocks of one page share one namespace.
- Every other fence (``sh``, ``text``, ``json``, ``python``...) is illustration and not run.

Why a small collector of our own rather than Sybil or pytest-examples: the convention above is
the whole feature, and the collector is under two hundred lines here. pytest-examples checks
Python code blocks (with its own ``#>`` comments for printed output) and has no shell
transcripts; Sybil parses doctests and Python code blocks but has no parser for a console
transcript with merged streams and ``...`` line wildcards either. Either way we would write the
console part ourselves, which is most of the work, and add a dependency for the doctest part,
which the standard library's ``doctest`` already does. Our own code also gives each example a
stable test id (``page:line``) and a failure message that shows the command with the expected
and the actual lines.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<info>[^`\s]*)")
HEREDOC = re.compile(r"<<-?\s*(['\"]?)(?P<word>[A-Za-z_][A-Za-z0-9_]*)\1")
COMMAND_SECONDS = 120
DOCTEST_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass(frozen=True)
class Block:
    """One checked fence: its page, the line its fence opens on, its kind and its lines."""

    page: Path
    line: int
    kind: str
    lines: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_of(page: Path) -> list[Block]:
    """The ``console`` and ``pycon`` fences of a page, in order, with the fence's indent removed."""
    found: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, fence, info = opening["indent"], opening["fence"], opening["info"]
        opened = index + 1
        body: list[str] = []
        index += 1
        while index < len(lines) and not lines[index].strip().startswith(fence):
            text = lines[index]
            body.append(text[len(indent) :] if text.startswith(indent) else text.lstrip())
            index += 1
        if info in ("console", "pycon"):
            found.append(Block(page, opened, info, tuple(body)))
        index += 1
    return found


def collect() -> list[Block]:
    return [block for page in PAGES for block in blocks_of(page)]


BLOCKS = collect()


@dataclass(frozen=True)
class Command:
    """A ``$ `` command (with its heredoc lines) and the output the page expects of it."""

    text: str
    expected: tuple[str, ...]


def commands_of(block: Block) -> list[Command]:
    """Split a console block into commands and their expected output lines."""
    commands: list[Command] = []
    lines = list(block.lines)
    index = 0
    if lines and not lines[0].startswith("$ "):
        raise ValueError(f"{block.name}: a console block must start with a '$ ' command line")
    while index < len(lines):
        command = [lines[index][2:]]
        index += 1
        for terminator in (match["word"] for match in HEREDOC.finditer(command[0])):
            while index < len(lines):
                command.append(lines[index])
                index += 1
                if command[-1] == terminator:
                    break
        expected: list[str] = []
        while index < len(lines) and not lines[index].startswith("$ "):
            expected.append(lines[index])
            index += 1
        commands.append(Command("\n".join(command), tuple(expected)))
    return commands


def line_matches(pattern: str, actual: str) -> bool:
    """``...`` inside a line stands for any text within that line."""
    if "..." not in pattern:
        return pattern == actual
    regex = ".*".join(re.escape(part) for part in pattern.split("..."))
    return re.fullmatch(regex, actual) is not None


def output_matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line; a line that is exactly ``...`` matches any number of lines."""
    memo: dict[tuple[int, int], bool] = {}

    def match(i: int, j: int) -> bool:
        if (i, j) not in memo:
            if i == len(expected):
                memo[i, j] = j == len(actual)
            elif expected[i] == "...":
                memo[i, j] = any(match(i + 1, later) for later in range(j, len(actual) + 1))
            else:
                memo[i, j] = j < len(actual) and line_matches(expected[i], actual[j]) and match(i + 1, j + 1)
        return memo[i, j]

    return match(0, 0)


def trimmed(lines: list[str] | tuple[str, ...]) -> list[str]:
    """Trailing whitespace off every line, and blank lines off the end."""
    result = [line.rstrip() for line in lines]
    while result and not result[-1]:
        result.pop()
    return result


def shell_environment() -> dict[str, str]:
    """This interpreter's bin first on PATH (so ``triples`` is this checkout's), fixed widths."""
    environment = dict(os.environ)
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    # argparse wraps help at COLUMNS; unbuffered output keeps stdout and stderr in write order.
    environment.update({"COLUMNS": "80", "PYTHONUNBUFFERED": "1", "LC_ALL": "C.UTF-8"})
    environment.pop("NO_COLOR", None)
    return environment


def run_console(block: Block, directory: Path) -> list[str]:
    """Run each command of a console block; the failures, described, or an empty list."""
    failures: list[str] = []
    for command in commands_of(block):
        try:
            finished = subprocess.run(
                ["bash", "-c", command.text],
                cwd=directory,
                env=shell_environment(),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=COMMAND_SECONDS,
                check=False,
            )
            actual = trimmed(finished.stdout.decode("utf-8", errors="replace").splitlines())
        except subprocess.TimeoutExpired:
            failures.append(f"$ {command.text}\n  did not finish within {COMMAND_SECONDS} s")
            continue
        expected = trimmed(command.expected)
        if not output_matches(expected, actual):
            failures.append(
                f"$ {command.text}\n--- expected\n" + "\n".join(expected) + "\n--- actual\n" + "\n".join(actual)
            )
    return failures


def run_pycon(block: Block, namespace: dict[str, Any], directory: Path) -> list[str]:
    """Run a pycon block as a doctest in the page's namespace; the failure report, if any."""
    test = doctest.DocTestParser().get_doctest(
        "\n".join(block.lines) + "\n", namespace, block.name, str(block.page), block.line
    )
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=DOCTEST_FLAGS)
    before = Path.cwd()
    os.chdir(directory)
    try:
        runner.run(test, out=report.append, clear_globs=False)
    finally:
        os.chdir(before)
    namespace.update(test.globs)  # the doctest ran on a copy: keep its names for the next block
    return ["".join(report)] if runner.failures else []


@dataclass
class PageState:
    """A page's temporary directory, its doctest namespace and how many of its blocks ran."""

    directory: Path
    namespace: dict[str, Any] = field(default_factory=dict)
    done: int = 0


@pytest.fixture(scope="session")
def page_states(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, PageState]:
    states: dict[Path, PageState] = {}
    for number, page in enumerate(PAGES):
        states[page] = PageState(tmp_path_factory.mktemp(f"page{number}-{page.stem}"))
    return states


def run_block(block: Block, state: PageState) -> list[str]:
    if block.kind == "console":
        return run_console(block, state.directory)
    return run_pycon(block, state.namespace, state.directory)


@pytest.mark.parametrize("block", BLOCKS, ids=[block.name for block in BLOCKS])
def test_example(block: Block, page_states: dict[Path, PageState]) -> None:
    state = page_states[block.page]
    on_page = [earlier for earlier in BLOCKS if earlier.page == block.page]
    position = on_page.index(block)
    # A block may rely on files or names an earlier block of its page made: when this one is
    # run alone (pytest -k), the earlier ones run first, unchecked.
    for earlier in on_page[state.done : position]:
        run_block(earlier, state)
    state.done = position + 1
    failures = run_block(block, state)
    assert not failures, "\n\n".join(failures)


# ----------------------------------------------------------------- the collector's own rules


def test_line_wildcard_matches_any_number_of_lines() -> None:
    assert output_matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert output_matches(["a", "...", "d"], ["a", "d"])
    assert output_matches(["..."], [])
    assert not output_matches(["a", "...", "d"], ["a", "b", "c"])
    assert not output_matches(["a"], ["a", "b"])


def test_inline_wildcard_stays_within_one_line() -> None:
    assert line_matches("took ... s", "took 0.25 s")
    assert not line_matches("took ... s", "took 0.25 ms!")
    assert not output_matches(["took ... s"], ["took", "0.25 s"])
    assert line_matches("a (b) [c]", "a (b) [c]")


def test_commands_split_with_heredoc_and_outputs() -> None:
    block = Block(
        ROOT / "README.md",
        1,
        "console",
        ("$ cat > f <<'EOF'", "$ not a command", "EOF", "$ cat f", "output", "$ true"),
    )
    assert commands_of(block) == [
        Command("cat > f <<'EOF'\n$ not a command\nEOF", ()),
        Command("cat f", ("output",)),
        Command("true", ()),
    ]


def test_console_output_is_checked(tmp_path: Path) -> None:
    good = Block(ROOT / "README.md", 1, "console", ("$ echo out; echo err >&2", "out", "err"))
    bad = Block(ROOT / "README.md", 1, "console", ("$ echo out", "other"))
    assert run_console(good, tmp_path) == []
    assert run_console(bad, tmp_path) == ["$ echo out\n--- expected\nother\n--- actual\nout"]


def test_pycon_is_a_doctest(tmp_path: Path) -> None:
    namespace: dict[str, Any] = {}
    assert (
        run_pycon(Block(ROOT / "README.md", 1, "pycon", (">>> x = [1,  2]", ">>> x", "[1, 2]")), namespace, tmp_path)
        == []
    )
    failed = run_pycon(Block(ROOT / "README.md", 1, "pycon", (">>> x", "[2, ...]")), namespace, tmp_path)
    assert len(failed) == 1 and "Expected:" in failed[0]


def test_every_page_has_examples_collected() -> None:
    pages_with_examples = {block.page for block in BLOCKS}
    assert ROOT / "README.md" in pages_with_examples


# ----------------------------------------------------------------- the pages themselves


def test_readme_is_a_front_page_with_the_ci_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    test_command = (
        "python3 -m venv .venv && . .venv/bin/activate && python -m pip install -e '.[test]' && python -m pytest -q"
    )
    assert test_command in readme.splitlines()
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def test_every_docs_page_is_in_the_site_navigation() -> None:
    navigation = re.findall(r":\s*(\S+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.MULTILINE)
    pages = sorted(str(page.relative_to(ROOT / "docs")) for page in (ROOT / "docs").glob("**/*.md"))
    assert sorted(navigation) == pages


def test_no_page_leans_on_texts_outside_the_repository() -> None:
    outside = re.compile(r"\.\./shared|\bSPEC\b|reference/")
    texts = [ROOT / "README.md", *(ROOT / "docs").glob("**/*.md"), *(ROOT / "triples").glob("**/*.*")]
    leaning = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in texts
        if path.suffix in (".md", ".py", ".js", ".html", ".css")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if outside.search(line)
    ]
    assert leaning == []
