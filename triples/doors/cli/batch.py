"""The batch mode: operations in, outputs out, the input's shape deciding how they are grouped.

- One JSON array of operations (the whole input) -> one JSON array of outputs, a fresh session.
- JSON Lines, each line one operation (an array starting with a string) -> one output line per
  line, all in one session, each answered and flushed as soon as its line arrives.
- JSON Lines, each line an array of operations -> one output array per line, each line a fresh
  session.

The input is read as lines only when it holds more than one non-blank line and its first
non-blank line is a complete JSON value; the first line's shape then says which kind of lines
they all are. Blank lines are skipped, and a line that is not JSON is answered in place (with
``"error: invalid JSON: ..."``, inside an array in lines of arrays, so that every line gets the
shape its kind of lines has) while the rest goes on. Until a second non-blank line (or the end
of the input) arrives, nothing says that the input is lines, so the first answer waits for it;
``lines=True`` (``triples run --jsonl``) says from the start that every line is one operation,
and answers the first line at once.

The input is judged as it streams, in pieces (``Reader``): a byte JSON allows nowhere (a control
character such as NUL: ``/dev/zero``) ends one document at once, with its line and column,
and a document or a line longer than ``MAX_TEXT_BYTES`` ends the input, so memory never holds
more than that however long the input runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from triples.interpreter.jsonio import JSONInputError, dumps, json_kind, loads

_JSON_BLANK = b" \t\r\n"  # JSON's own whitespace, not Python's
# Bytes JSON allows nowhere, not even in a string: every control character but tab, LF and CR.
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
PIECE = 64 * 1024  # bytes read at a time
MAX_TEXT_BYTES = 256 * 1024 * 1024  # the longest document, or line of JSON Lines


class NotOperations(JSONInputError):
    """A document that is JSON but not an array of operations."""


class ControlByte(Exception):
    """A byte JSON allows nowhere, at ``line`` and ``column`` (from 1, in characters)."""

    def __init__(self, line: int, column: int, byte: int) -> None:
        super().__init__(f"a control character (byte 0x{byte:02x})")
        self.line, self.column = line, column

    def in_document(self) -> JSONInputError:
        return JSONInputError(f"invalid JSON at line {self.line}, column {self.column}: {self}, which JSON never holds")

    def in_line(self) -> str:
        return f"error: invalid JSON: {self} at column {self.column}"


def too_long(what: str) -> JSONInputError:
    limit = MAX_TEXT_BYTES // (1024 * 1024)
    return JSONInputError(f"{what} is over {limit} MiB, the most a document or a line may hold")


class Reader:
    """The input, read in pieces of at most ``PIECE`` bytes: a line at a time (``line``) or
    the rest whole (``rest``), every piece looked at for control characters as it arrives, and
    never more than ``MAX_TEXT_BYTES`` held."""

    def __init__(self, source: BinaryIO) -> None:
        self.source = source
        self.line_number = 0  # of the line read last (or being read)
        self.mid_line = False  # whether a ``ControlByte`` left the current line part read

    def line(self) -> bytes | None:
        """The next line, its newline included (None at the end). ``ControlByte`` as soon as
        one arrives, the line left part read (``skip_line`` drops the rest)."""
        self.line_number += 1
        pieces: list[bytes] = []
        size = 0
        while True:
            piece = self.source.readline(PIECE)
            if not piece:
                if not pieces:
                    self.line_number -= 1
                    return None
                return b"".join(pieces)
            self.check(piece, pieces)
            pieces.append(piece)
            size += len(piece)
            if size > MAX_TEXT_BYTES:
                raise too_long(f"line {self.line_number}")
            if piece.endswith(b"\n"):
                return b"".join(pieces)

    def check(self, piece: bytes, before: list[bytes]) -> None:
        found = _CONTROL.search(piece)
        if found is not None:
            start = b"".join(before) + piece[: found.start()]
            column = len(start.rsplit(b"\n", 1)[-1].decode(errors="replace")) + 1
            self.mid_line = not piece.endswith(b"\n")
            raise ControlByte(self.line_number, column, piece[found.start()])

    def skip_line(self) -> None:
        """Read and drop what is left of the line a ``ControlByte`` stopped in (up to ``MAX_TEXT_BYTES``)."""
        if not self.mid_line:
            return
        self.mid_line = False
        size = 0
        while True:
            piece = self.source.readline(PIECE)
            size += len(piece)
            if not piece or piece.endswith(b"\n"):
                return
            if size > MAX_TEXT_BYTES:
                raise too_long(f"line {self.line_number}")

    def rest(self, head: list[bytes]) -> bytes:
        """The document: ``head`` (its lines read so far) and the rest of the input, whole."""
        pieces = list(head)
        size = sum(map(len, pieces))
        while piece := self.source.readline(PIECE):
            if pieces and pieces[-1].endswith(b"\n"):
                self.line_number += 1
            self.check(piece, pieces if not pieces or not pieces[-1].endswith(b"\n") else [])
            pieces.append(piece)
            size += len(piece)
            if size > MAX_TEXT_BYTES:
                raise too_long("the input")
        return b"".join(pieces)


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
    or not an array, and when a document or a line is longer than ``MAX_TEXT_BYTES``.
    """
    reader = Reader(source)
    head: list[bytes] = []  # what was read before the mode is known, blank lines included
    try:
        first = next_nonblank(reader, head)
    except ControlByte as exc:
        if not lines:  # the first line is no complete value: the start of one document
            raise exc.in_document() from None
        answer_lines(LineError(exc.in_line()), lines_of(reader, skip=True), out, forced=True)
        return
    if first is None:  # nothing but blank lines: no line to answer, or an empty document
        if not lines:
            answer_document(out, data=b"".join(head))
        return
    try:
        first_value = loads(first)
    except JSONInputError:
        if not lines:  # not a complete value: the start of one document
            answer_document(out, data=document_rest(reader, head))
            return
        first_value = LineError(f"error: {line_problem(first)}")
    if not lines:
        try:
            second = next_nonblank(reader, [])
        except ControlByte as exc:  # a second line, of lines of the first line's kind
            answer_lines(first_value, prepend(LineError(exc.in_line()), lines_of(reader, skip=True)), out)
            return
        if second is None:
            answer_document(out, value=first_value)
            return
        rest: Iterator[bytes | LineError] = prepend(second, lines_of(reader))
    else:
        rest = lines_of(reader)
    answer_lines(first_value, rest, out, forced=lines)


def document_rest(reader: Reader, head: list[bytes]) -> bytes:
    try:
        return reader.rest(head)
    except ControlByte as exc:
        raise exc.in_document() from None


def next_nonblank(reader: Reader, seen: list[bytes]) -> bytes | None:
    """The next line that is not blank (None at the end), keeping every line read in ``seen``."""
    size = sum(map(len, seen))
    while (line := reader.line()) is not None:
        seen.append(line)
        size += len(line)
        if size > MAX_TEXT_BYTES:
            raise too_long("the input")
        if not is_blank(line):
            return line
    return None


def lines_of(reader: Reader, *, skip: bool = False) -> Iterator[bytes | LineError]:
    """Every line left, or in place of one with a control character, its error (the rest of
    that line dropped once the error is answered). ``skip``: first drop the rest of the line a
    control character stopped in."""
    if skip:
        reader.skip_line()
    while True:
        try:
            line = reader.line()
        except ControlByte as exc:
            yield LineError(exc.in_line())
            reader.skip_line()
            continue
        if line is None:
            return
        yield line


def prepend(line: bytes | LineError, rest: Iterator[bytes | LineError]) -> Iterator[bytes | LineError]:
    yield line
    yield from rest


def answer_document(out: BinaryIO, *, data: bytes | None = None, value: Any = None) -> None:
    """One JSON array of operations (``data``, or its ``value`` already read) -> one JSON array of outputs."""
    from triples.api import run

    operations = loads(data) if data is not None else value
    if not isinstance(operations, list):
        raise NotOperations(f"expected a JSON array of operations, got {json_kind(operations)}")
    write_all(out, dumps(run(operations)))


class LineError:
    """A line that is not JSON: answered in place, in either kind of lines."""

    def __init__(self, output: str) -> None:
        self.output = output


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


def answer_lines(first: Any, rest: Iterator[bytes | LineError], out: BinaryIO, *, forced: bool = False) -> None:
    """Answer line by line: only the current line is held in memory. A line that is not JSON is
    answered with its error, inside an array in lines of arrays (each line's answer is an array)."""
    answer_one, of_arrays = line_answerer(first, forced)

    def failed(error: LineError) -> Any:
        return [error.output] if of_arrays else error.output

    write_all(out, dumps(failed(first) if isinstance(first, LineError) else answer_one(first)))
    for line in rest:
        if isinstance(line, LineError):
            output = failed(line)
        elif is_blank(line):
            continue
        else:
            try:
                value = loads(line)
            except JSONInputError:
                output = failed(LineError(f"error: {line_problem(line)}"))
            else:
                output = answer_one(value)
        write_all(out, dumps(output))


def line_answerer(first: Any, forced: bool) -> tuple[Callable[[Any], Any], bool]:
    """How each line is answered, as an operation of one session or as a batch of its own
    (``forced``: lines of operations, whatever the first line looks like), and whether lines
    are arrays of operations."""
    if not forced and isinstance(first, list) and not is_operation(first):
        from triples.api import run

        return run, True
    from triples.interpreter.session import Session

    return Session().apply, False


def recorded(source: BinaryIO) -> list[list[Any]]:
    """The sessions an input holds, in any shape ``answer`` reads, for ``triples record``: one
    array of operations or lines of operations are one session, lines of arrays one session
    per line. Everything a fixture cannot hold is refused (``JSONInputError``): a line that is
    not JSON, a line of lines of arrays that is not an array."""
    reader = Reader(source)
    head: list[bytes] = []  # every line read before the shape is known
    try:
        first = next_nonblank(reader, head)
        first_number = reader.line_number
        second = None if first is None else next_nonblank(reader, head)
    except ControlByte as exc:
        raise exc.in_document() from None
    try:
        first_value = loads(first) if first is not None and second is not None else NOT_LINES
    except JSONInputError:  # not a complete value: one document over several lines
        first_value = NOT_LINES
    if first_value is NOT_LINES:
        return [operations_in(loads(document_rest(reader, head)))]
    assert second is not None
    values = [(first_number, first_value)]
    for line in prepend(second, lines_of(reader)):
        if isinstance(line, LineError):
            raise JSONInputError(f"line {reader.line_number}: {line.output.removeprefix('error: ')}")
        if is_blank(line):
            continue
        try:
            values.append((reader.line_number, loads(line)))
        except JSONInputError:
            raise JSONInputError(f"line {reader.line_number}: {line_problem(line)}") from None
    if not isinstance(first_value, list) or is_operation(first_value):
        return [[value for _, value in values]]
    for number, value in values:
        if not isinstance(value, list):
            raise NotOperations(f"line {number}: expected a JSON array of operations, got {json_kind(value)}")
    return [value for _, value in values]


NOT_LINES: Any = object()  # what ``recorded`` reads when the input is one document


def operations_in(document: Any) -> list[Any]:
    if not isinstance(document, list):
        raise NotOperations(f"expected a JSON array of operations, got {json_kind(document)}")
    return document
