"""The one rows layer: formats that read back what they write, resuming that never ruins a file
it does not understand, and the edges of the files a command is given (``/dev/stdout``, a full
disk, a line longer than any row)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.test_service import ENV
from triples.doors import cli
from triples.doors.kit.rows_file import (
    LONGEST_LINE,
    Column,
    Csv,
    JsonLines,
    ResumeRefused,
    TextTable,
    read_rows_file,
)

COLUMNS = (
    Column("seed", int, 4),
    Column("won", bool, 3),
    Column("share", float, 7, percent=True),
    Column("mean", float, 6, digits=3),
    Column("chance", float, 8, digits=4, optional=True),
    Column("name", str, 20),
)
ROWS = [
    {"seed": 1, "won": True, "share": 0.25, "mean": 12.5, "chance": 0.1235, "name": "classic(slots=11,target=21)"},
    {"seed": 2, "won": False, "share": 1.0, "mean": 0.0, "chance": None, "name": "sum15"},
]
FORMATS = {"table": TextTable(COLUMNS), "jsonl": JsonLines(COLUMNS), "csv": Csv(COLUMNS)}


def exact(names: tuple[str, ...]) -> tuple[Column, ...] | None:
    return COLUMNS if names == tuple(column.name for column in COLUMNS) else None


def written(name: str) -> str:
    fmt = FORMATS[name]
    return "".join(line + "\n" for line in ([fmt.header()] if fmt.has_header else []) + [fmt.line(r) for r in ROWS])


@pytest.mark.parametrize("name", FORMATS)
def test_every_format_reads_back_what_it_writes(name: str, tmp_path: Path) -> None:
    path = tmp_path / "rows"
    path.write_text(written(name))
    found = read_rows_file(str(path), FORMATS[name], exact)
    assert found.rows == ROWS
    assert (found.whole_bytes, found.needs_header, found.regular) == (len(path.read_bytes()), False, True)


def test_how_each_format_writes_a_row() -> None:
    assert [FORMATS[name].line(ROWS[1]) for name in FORMATS] == [
        "   2  no 100.00%  0.000        -                sum15",
        '{"seed":2,"won":false,"share":1.0,"mean":0.0,"chance":null,"name":"sum15"}',
        "2,false,1.0,0.0,,sum15",
    ]
    assert FORMATS["csv"].line(ROWS[0]) == '1,true,0.25,12.5,0.1235,"classic(slots=11,target=21)"'


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize(
    "notes",
    ["remember to rate classic", "remember to rate classic\nand sum15\n", "seed 12 looked odd\n"],
    ids=["one-line-no-newline", "lines", "one-line"],
)
def test_a_file_of_notes_is_refused_and_kept_byte_for_byte(name: str, notes: str, tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text(notes)
    with pytest.raises(ResumeRefused):
        read_rows_file(str(path), FORMATS[name], exact)
    assert path.read_text() == notes


@pytest.mark.parametrize("name", FORMATS)
def test_a_row_cut_by_a_kill_is_no_row_and_is_dropped_on_appending(name: str, tmp_path: Path) -> None:
    from triples.doors.kit.rows_file import open_for_append

    whole = written(name)
    cut = FORMATS[name].line(ROWS[0])[:9]
    path = tmp_path / "rows"
    path.write_text(whole + cut)
    found = read_rows_file(str(path), FORMATS[name], exact)
    assert (found.rows, found.whole_bytes) == (ROWS, len(whole.encode()))
    assert path.read_text() == whole + cut  # reading changes nothing
    with open_for_append(found) as sink:
        sink.write("appended\n")
    assert path.read_text() == whole + "appended\n"


def test_a_line_longer_than_any_row_is_refused_without_reading_it_whole(tmp_path: Path) -> None:
    path = tmp_path / "rows"
    path.write_bytes(b"1" * (2 * LONGEST_LINE) + b"\n")
    with pytest.raises(ResumeRefused, match=f"holds a line of more than {LONGEST_LINE} bytes"):
        read_rows_file(str(path), FORMATS["csv"], exact)


def test_what_is_not_a_regular_file_is_never_read() -> None:
    found = read_rows_file("/dev/zero", FORMATS["jsonl"], exact)
    assert (found.rows, found.regular, found.exists) == ([], False, False)


def run_triples(*args: str, stdin: bytes = b"", timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "triples", *args], input=stdin, capture_output=True, env=ENV, timeout=timeout
    )


@pytest.mark.parametrize("command", ["rate", "sweep"])
def test_rate_and_sweep_refuse_a_file_of_notes_alike(command: str, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("remember: rate classic first")
    extra = ["--vary", "target=14,15"] if command == "sweep" else []
    done = run_triples(command, "--variant", "sum15", "--seeds", "1-3", *extra, "--out", str(notes), "--jobs", "1")
    assert done.returncode == 2
    wording = "table sweep rows" if command == "sweep" else "table rows"
    assert done.stderr.decode().startswith(f"triples {command}: error: --out {notes} is not a file of {wording}")
    assert len(done.stderr.decode().splitlines()) == 1
    assert notes.read_text() == "remember: rate classic first"


def test_rows_sent_to_dev_stdout_in_a_pipe_come_out_and_nothing_hangs() -> None:
    done = run_triples("rate", "--variant", "sum15", "--seeds", "1-3", "--format", "jsonl", "--out", "/dev/stdout")
    assert done.returncode == 0, done.stderr
    assert [orjson.loads(line)["seed"] for line in done.stdout.splitlines()] == [1, 2, 3]


@pytest.mark.parametrize("command", ["rate", "sweep"])
def test_a_full_disk_is_one_line_and_exit_2(command: str) -> None:
    extra = ["--vary", "target=14,15"] if command == "sweep" else []
    done = run_triples(command, "--variant", "sum15", "--seeds", "1-3", *extra, "--out", "/dev/full", "--jobs", "1")
    assert (done.returncode, done.stderr.decode()) == (
        2,
        f"triples {command}: error: --out /dev/full: No space left on device\n",
    )


def test_a_seed_in_both_the_file_and_the_store_is_counted_out_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seeds 1-20 are in the file and in the store; 21-40 in neither: two workers rate them
    # (counting the first twenty out twice left none to rate, and one process for twenty).
    monkeypatch.chdir(tmp_path)
    base = ["rate", "--variant", "sum15", "--format", "jsonl", "--db", "store.db"]
    assert cli.main([*base, "--seeds", "1-20", "--out", "rows.jsonl", "--jobs", "1"]) == 0
    capsys.readouterr()
    assert cli.main([*base, "--seeds", "1-40", "--out", "rows.jsonl", "--jobs", "2"]) == 0
    err = capsys.readouterr().err
    assert "resumed: 20 rows already in rows.jsonl" in err
    assert "(20 new deals in " in err and ", jobs 2)" in err
    assert "store: 0 rows from store.db, 20 rated and added" in err
    seeds = [orjson.loads(line)["seed"] for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert seeds == list(range(1, 41))
