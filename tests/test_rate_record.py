"""Rows files know what made them (triples.doors.rating.resume): every mismatched resume is refused in one
line with the file byte for byte as it was, and rows are the same however the seeds are split,
ordered or executed."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from triples import __version__
from triples.doors import cli
from triples.doors.rating.resume import check_resume, read_record
from triples.doors.rating.rows import (
    PROVENANCE_COLUMNS,
    RECORD_COLUMNS,
    Provenance,
    RateOptions,
    line_of,
    rate_format,
    row_values,
)
from triples.doors.rating.seed_rows import rate_batch

REFUSAL_TAIL = "use the same options, or another file"


def make(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> bytes:
    """Rate into ``rows`` (in ``tmp_path``) and return the file's bytes, with a cut last line
    added as a killed run leaves one: a refused resume must not mend it either."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["rate", "--out", "rows", "--jobs", "1", *args]) == 0
    capsys.readouterr()
    rows = tmp_path / "rows"
    with rows.open("a") as f:
        f.write("1,2" if "csv" in args else '{"seed":9')
    return rows.read_bytes()


MISMATCHES = [
    pytest.param(
        ["--variant", "classic"],
        ["--variant", "sum15"],
        "pick-or-rate",
        "variant classic (not sum15)",
        id="variant",
    ),
    pytest.param(["--strategy", "high"], ["--strategy", "first"], "rate", "strategy high (not first)", id="strategy"),
    pytest.param([], ["--fair"], "rate", "analyses none (not fair)", id="fair-on-plain"),
    pytest.param(["--fair"], [], "rate", "analyses fair (not none)", id="plain-on-fair"),
    pytest.param(["--fair"], ["--difficulty"], "rate", "analyses fair (not difficulty)", id="difficulty-on-fair"),
    pytest.param(
        ["--strategy", "first"],
        ["--variant", "sum15"],
        "rate",
        "variant classic (not sum15), strategy first (not high)",
        id="two-at-once",
    ),
]


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
@pytest.mark.parametrize(("made", "resumed", "command", "difference"), MISMATCHES)
def test_a_resume_with_other_options_is_refused_and_the_file_unchanged(
    made: list[str],
    resumed: list[str],
    command: str,
    difference: str,
    fmt: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = make(tmp_path, monkeypatch, capsys, "--variant", "classic", "--seeds", "1-2", "--format", fmt, *made)
    variant = [] if "--variant" in resumed else ["--variant", "classic"]
    assert cli.main(["rate", *variant, "--seeds", "1-4", "--format", fmt, "--out", "rows", *resumed]) == 2
    message = f"--out rows holds rows of {difference} at seed 1: {REFUSAL_TAIL}"
    assert capsys.readouterr() == ("", f"triples rate: error: {message}\n")
    assert (tmp_path / "rows").read_bytes() == before
    if command == "pick-or-rate":  # pick checks the same record (its rows are high's, with difficulty)
        args = ["pick", *resumed, "--seeds", "1-4", "--band", "easy", "--format", fmt, "--out", "rows"]
        assert cli.main(args) == 2
        pick_difference = f"{difference}, analyses none (not difficulty)"
        assert capsys.readouterr() == ("", f"triples pick: error: --out rows holds rows of {pick_difference} "
                                           f"at seed 1: {REFUSAL_TAIL}\n")  # fmt: skip
        assert (tmp_path / "rows").read_bytes() == before


def test_rows_of_another_version_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = make(tmp_path, monkeypatch, capsys, "--variant", "sum15", "--seeds", "1-3", "--format", "jsonl")
    older = before.replace(f'"version":"{__version__}"}}\n{{"seed":2'.encode(), b'"version":"0.0.1"}\n{"seed":2')
    assert older != before
    (tmp_path / "rows").write_bytes(older)
    assert cli.main(["rate", "--variant", "sum15", "--seeds", "1-5", "--format", "jsonl", "--out", "rows"]) == 2
    message = f"--out rows holds rows of version 0.0.1 (not {__version__}) at seed 1: {REFUSAL_TAIL}"
    assert capsys.readouterr() == ("", f"triples rate: error: {message}\n")
    assert (tmp_path / "rows").read_bytes() == older


@pytest.mark.parametrize(
    ("fmt", "content"),
    [
        ("csv", "seed,autoplay,best,gap,won,states,ms,version\n1,0,0,0,false,0,0.5,0.1.0\n"),
        ("jsonl", '{"seed":1,"autoplay":0,"best":0,"gap":0,"won":false,"states":0,"ms":0.5}\n'),
    ],
)
def test_a_file_that_does_not_say_what_made_its_rows_is_refused(
    fmt: str, content: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rows").write_text(content)
    assert cli.main(["rate", "--seeds", "1-3", "--format", fmt, "--out", "rows"]) == 2
    assert capsys.readouterr().err == (
        "triples rate: error: --out rows does not say what made its rows (it has no variant, strategy, analyses "
        "and version columns; an older triples wrote it): rate into a new file\n"
    )
    assert (tmp_path / "rows").read_text() == content


def test_reading_a_record_changes_nothing_and_appending_mends_the_cut_line(tmp_path: Path) -> None:
    rows = rate_batch(RateOptions("sum15", "high"), [1, 2])
    fmt = rate_format("jsonl", RECORD_COLUMNS, 2)
    path = tmp_path / "rows"
    whole = "".join(line_of(fmt, row) + "\n" for row in rows)
    path.write_text(whole + line_of(fmt, rows[0])[:20])
    before = path.read_bytes()
    record = check_resume(str(path), rows[0].provenance, fmt, RECORD_COLUMNS)
    assert path.read_bytes() == before
    assert (sorted(record.rows), record.file.whole_bytes, record.needs_header) == ([1, 2], len(whole), False)
    assert read_record(str(path), fmt).rows == record.rows
    assert record.rows[1].provenance == Provenance("sum15", "high", "none", __version__)


def test_the_record_columns_end_every_row_of_a_file() -> None:
    assert RECORD_COLUMNS[-4:] == PROVENANCE_COLUMNS == ("variant", "strategy", "analyses", "version")


def comparable(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: v for k, v in row.items() if k != "ms"} for row in rows]


@pytest.mark.parametrize("analyses", [[], ["--difficulty"]], ids=["plain", "difficulty"])
def test_rows_are_the_same_across_splits_executors_and_order(
    analyses: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One range with one job; the same seeds in three pieces with two jobs (resumed each time);
    and in this process in reverse order after other deals: the same rows but for the timing."""
    monkeypatch.chdir(tmp_path)
    last = 11 if analyses else 39
    base = ["rate", "--variant", "sum15", "--format", "jsonl", *analyses]
    assert cli.main([*base, "--seeds", f"0-{last}", "--jobs", "1"]) == 0
    whole = comparable([orjson.loads(line) for line in capsys.readouterr().out.splitlines()])
    for piece in (f"{last // 2}-{last}", f"0-{last // 3}", f"0-{last}"):
        assert cli.main([*base, "--seeds", piece, "--jobs", "2", "--out", "split"]) == 0
    capsys.readouterr()
    split = [orjson.loads(line) for line in (tmp_path / "split").read_text().splitlines()]
    split.sort(key=lambda row: int(row["seed"]))
    assert comparable(split) == whole
    columns = ("fair", "p_random", "band") if analyses else ()
    rate_batch(RateOptions("classic", "high", columns), [7, 8])  # other deals first, in this process
    backwards = rate_batch(RateOptions("sum15", "high", columns), list(range(last, -1, -1)))
    assert comparable([dict(row_values(row)) for row in reversed(backwards)]) == whole


def test_a_variant_of_ones_own_is_recorded_by_its_canonical_name_quoted_in_csv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    own = ["rate", "--seeds", "1-2", "--format", "csv", "--out", "rows", "--jobs", "1"]
    assert cli.main([*own, "--variant", "classic(slots=11,target=21)"]) == 0
    lines = (tmp_path / "rows").read_text().splitlines()
    assert [line.split(",", 7)[-1] for line in lines[1:]] == [
        f'"classic(slots=11,target=21)",high,none,{__version__}'
    ] * 2
    assert cli.main([*own[:2], "1-3", *own[3:], "--variant", "classic(slots=11,target=21)"]) == 0
    assert "resumed: 2 rows already in rows" in capsys.readouterr().err
    before = (tmp_path / "rows").read_bytes()
    assert cli.main([*own, "--variant", "classic(slots=11,target=22)"]) == 2
    assert capsys.readouterr().err == (
        "triples rate: error: --out rows holds rows of variant classic(slots=11,target=21) "
        f"(not classic(slots=11,target=22)) at seed 1: {REFUSAL_TAIL}\n"
    )
    assert (tmp_path / "rows").read_bytes() == before
