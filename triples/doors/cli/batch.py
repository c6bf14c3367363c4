"""The batch mode: operations in, outputs out, the input's shape deciding how they are grouped.

- One JSON array of operations (the whole input) -> one JSON array of outputs, a fresh session.
- JSON Lines, each line one operation (an array starting with a string) -> one output line per
  line, all in one session, each answered and flushed as soon as its line arrives.
- JSON Lines, each line an array of operations -> one output array per line, each line a fresh
  session.

The input is read as lines only when it holds more than one non-blank line and its first
non-blank line is a complete JSON value; the first line's shape then says which kind of lines
they all are. Blank lines are skipped, and a line that is not JSON is answered in place with
``"error: invalid JSON: ..."`` while the rest goes on. Until a second non-blank line (or the end
of the input) arrives, nothing says that the input is lines, so the first answer waits for it;
``lines=True`` (``triples run --jsonl``) says from the start that every line is one operation,
and answers the first line at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from triples.interpreter.jsonio import JSONInputError, dumps, json_kind, loads

_JSON_BLANK = b" \t\r\n"  # JSON's own whitespace, not Python's


class NotOperations(JSONInputError):
    """A document that is JSON but not an array of operations."""


def write_all(out: BinaryIO, data: bytes) -> None:
    """Write every byte of ``data`` and flush; a reader that has gone raises ``BrokenPipeError``.

    A write to a pipe may take only part of a large buffer (what the pipe holds) and report
    the count, with the failure waiting for the next write: so write until nothing is left.
    """
    view = memoryview(data)
    while view:
        count = out.write(view)
        view = view[count if count is not None else 0 :]
    out.flush()


def is_blank(line: bytes) -> bool:
    return not line.strip(_JSON_BLANK)


def answer(source: BinaryIO, out: BinaryIO, *, lines: bool = False) -> None:
    """Answer the operations in ``source`` on ``out`` in the mode the input's shape decides.

    Raises ``JSONInputError`` (nothing written) when the input is one document that is not JSON
    or not an array.
    """
    head: list[bytes] = []  # what was read before the mode is known, blank lines included
    first = next_nonblank(source, head)
    if first is None:  # nothing but blank lines: no line to answer, or an empty document
        if not lines:
            answer_document(out, data=b"".join(head))
        return
    try:
        first_value = loads(first)
    except JSONInputError:
        if not lines:  # not a complete value: the start of one document
            answer_document(out, data=b"".join(head) + source.read())
            return
        first_value = LineError(first)
    if not lines:
        second = next_nonblank(source, [])
        if second is None:
            answer_document(out, value=first_value)
            return
        rest: Iterator[bytes] = prepend(second, source)
    else:
        rest = iter(source.readline, b"")
    answer_lines(first_value, rest, out, forced=lines)


def next_nonblank(source: BinaryIO, seen: list[bytes]) -> bytes | None:
    """The next line that is not blank (None at the end), keeping every line read in ``seen``."""
    for line in iter(source.readline, b""):
        seen.append(line)
        if not is_blank(line):
            return line
    return None


def prepend(line: bytes, source: BinaryIO) -> Iterator[bytes]:
    yield line
    yield from iter(source.readline, b"")


def answer_document(out: BinaryIO, *, data: bytes | None = None, value: Any = None) -> None:
    """One JSON array of operations (``data``, or its ``value`` already read) -> one JSON array of outputs."""
    from triples.api import run

    operations = loads(data) if data is not None else value
    if not isinstance(operations, list):
        raise NotOperations(f"expected a JSON array of operations, got {json_kind(operations)}")
    write_all(out, dumps(run(operations)))


class LineError:
    """A line that is not JSON: answered in place, in either kind of lines."""

    def __init__(self, line: bytes) -> None:
        self.output = f"error: {line_problem(line)}"


def line_problem(line: bytes) -> str:
    """What is wrong with a line that is not JSON, its column counted within the line."""
    try:
        loads(line.rstrip(b"\r\n"))  # else an unfinished line would end "at line 2"
    except JSONInputError as exc:
        message = str(exc)
        prefix = "invalid JSON at line 1, column "
        if message.startswith(prefix):
            column, _, reason = message[len(prefix) :].partition(": ")
            return f"invalid JSON: {reason} at column {column}"
        return "invalid JSON: not UTF-8 text"  # the one other refusal of a line that is not blank
    return "invalid JSON"  # unreachable: the line failed to parse a moment ago


def is_operation(value: object) -> bool:
    return isinstance(value, list) and bool(value) and isinstance(value[0], str)


def answer_lines(first: Any, rest: Iterator[bytes], out: BinaryIO, *, forced: bool = False) -> None:
    """Answer line by line: only the current line is held in memory."""
    answer_one = line_answerer(first, forced)
    write_all(out, dumps(first.output if isinstance(first, LineError) else answer_one(first)))
    for line in rest:
        if is_blank(line):
            continue
        try:
            value = loads(line)
        except JSONInputError:
            output = LineError(line).output
        else:
            output = answer_one(value)
        write_all(out, dumps(output))


def line_answerer(first: Any, forced: bool) -> Callable[[Any], Any]:
    """How each line is answered: as an operation of one session, or as a batch of its own
    (``forced``: lines of operations, whatever the first line looks like)."""
    if not forced and isinstance(first, list) and not is_operation(first):
        from triples.api import run

        return run
    from triples.interpreter.session import Session

    return Session().apply
