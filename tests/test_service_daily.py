"""``GET /daily/{date}`` and ``/daily/today`` (triples/doors/service/daily.py): the day's deal from the
calendar in the store, with its table as ``new`` deals it; 404 for a date without a deal, 400
for a path that is no date, how to enable the paths without ``--db``; and through a real
``triples serve --db`` process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install -e '.[serve]'")

from fastapi.testclient import TestClient

from tests.helpers import SEED1_TABLE
from triples import run
from triples.doors import cli
from triples.doors.service import ServiceSettings, create_app
from triples.doors.service.daily import NOT_ENABLED
from triples.store import Deal, open_store

TIMEOUT = 30
DAY = "2026-01-05"
DEALS = [
    Deal(DAY, "classic", 1, "classic", "medium", 48, 48, 0.0807),
    Deal(DAY, "sum15", 2, "sum15", "easy", 36, 36, 0.65),
    Deal("2026-01-06", "sum15", 9, "sum15", "easy", 36, 36, 0.68),
]


def store_with(path: Path, deals: list[Deal]) -> str:
    with open_store(str(path)) as store, store.writing() as db:
        store.add_deals(db, deals)
    return str(path)


def today() -> str:
    return datetime.now(UTC).date().isoformat()


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    today_deal = Deal(today(), "classic", 4294967295, "classic", "hard", 39, 18, 0.25)
    return TestClient(create_app(ServiceSettings(daily_db=store_with(tmp_path / "s.db", [*DEALS, today_deal]))))


def expected(date: str, variant: str, seed: int, band: str, best: int) -> dict[str, Any]:
    table = run([["new", "g", seed, variant]])[0]
    return {"date": date, "variant": variant, "seed": seed, "band": band, "best": best, "table": table}


def test_a_day_is_its_deal_with_the_table_new_deals(client: TestClient) -> None:
    response = client.get(f"/daily/{DAY}")
    assert (response.status_code, response.headers["content-type"]) == (200, "application/json")
    assert response.json() == {
        "date": DAY,
        "variant": "classic",
        "seed": 1,
        "band": "medium",
        "best": 48,
        "table": SEED1_TABLE,
    }


def test_a_variant_is_chosen_by_name_and_classic_comes_first(client: TestClient) -> None:
    assert client.get(f"/daily/{DAY}?variant=sum15").json() == expected(DAY, "sum15", 2, "easy", 36)
    assert client.get("/daily/2026-01-06").json() == expected("2026-01-06", "sum15", 9, "easy", 36)  # the only one


def test_today_is_the_date_in_utc(client: TestClient) -> None:
    response = client.get("/daily/today")
    assert response.status_code == 200
    assert response.json() == expected(today(), "classic", 4294967295, "hard", 39)


@pytest.mark.parametrize(
    ("path", "status", "error"),
    [
        ("/daily/2026-01-07", 404, "no daily deal for 2026-01-07"),
        ("/daily/2026-01-06?variant=classic", 404, "no daily deal of classic for 2026-01-06"),
        ("/daily/2026-02-30", 400, "bad date '2026-02-30': expected YYYY-MM-DD or today"),
        ("/daily/tomorrow", 400, "bad date 'tomorrow': expected YYYY-MM-DD or today"),
    ],
    ids=["no-deal", "not-of-that-variant", "no-such-date", "not-a-date"],
)
def test_a_day_without_a_deal_is_a_json_error(client: TestClient, path: str, status: int, error: str) -> None:
    response = client.get(path)
    assert (response.status_code, response.json()) == (status, {"error": error})


def test_without_a_store_the_paths_say_how_to_enable_them() -> None:
    client = TestClient(create_app(ServiceSettings()))
    for path in ("/daily/today", f"/daily/{DAY}"):
        response = client.get(path)
        assert (response.status_code, response.json()) == (404, {"error": NOT_ENABLED})
    assert "triples serve --db FILE" in NOT_ENABLED


def test_a_store_that_cannot_be_read_is_a_500_that_names_no_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from triples.doors.service.daily import STORE_UNREADABLE

    path = tmp_path / "secret-place" / "s.db"
    path.parent.mkdir()
    client = TestClient(create_app(ServiceSettings(daily_db=store_with(path, DEALS))))
    path.write_bytes(b"not a store any more")
    response = client.get(f"/daily/{DAY}")
    assert (response.status_code, response.json()) == (500, {"error": STORE_UNREADABLE})
    assert "secret-place" not in response.text
    assert "secret-place" in caplog.text  # the server's log says what is wrong, and where


def test_dates_added_while_serving_are_served(client: TestClient, tmp_path: Path) -> None:
    assert client.get("/daily/2026-03-01").status_code == 404
    store_with(tmp_path / "s.db", [Deal("2026-03-01", "classic", 3, "classic", "easy", 48, 48, 0.08)])
    assert client.get("/daily/2026-03-01").json() == expected("2026-03-01", "classic", 3, "easy", 48)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, orjson.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, orjson.loads(exc.read())


def test_daily_through_triples_serve(tmp_path: Path) -> None:
    db = store_with(tmp_path / "season.db", [*DEALS, Deal(today(), "sum15", 7, "sum15", "hard", 36, 9, 0.27)])
    port = free_port()
    env = {**os.environ, "TRIPLES_DB": ""}  # only --db tells the server its store
    server = subprocess.Popen(
        [sys.executable, "-m", "triples", "serve", "--port", str(port), "--db", db, "--no-access-log"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            assert server.poll() is None, server.communicate()[1].decode()
            try:
                answer = get(f"http://127.0.0.1:{port}/daily/{DAY}")
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not answer in time"
                time.sleep(0.05)
        assert answer == (
            200,
            {"date": DAY, "variant": "classic", "seed": 1, "band": "medium", "best": 48, "table": SEED1_TABLE},
        )
        assert get(f"http://127.0.0.1:{port}/daily/today") == (200, expected(today(), "sum15", 7, "hard", 36))
        assert get(f"http://127.0.0.1:{port}/daily/1999-01-01") == (404, {"error": "no daily deal for 1999-01-01"})
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=TIMEOUT)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()


def test_serve_refuses_a_file_that_is_not_a_store_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("these are notes, not a database; serve must not start on them\n" * 2)
    assert cli.main(["serve", "--port", str(free_port()), "--db", str(text)]) == 2
    assert capsys.readouterr() == ("", f"triples serve: error: --db {text} is not a SQLite database\n")


def test_a_rule_set_of_ones_own_is_dealt_by_its_canonical_name(tmp_path: Path) -> None:
    name = "classic(slots=11,target=21)"
    db = store_with(tmp_path / "rules.db", [Deal(DAY, name, 4, name, "easy", 15, 15, 1.0)])
    client = TestClient(create_app(ServiceSettings(daily_db=db)))
    answer = client.get(f"/daily/{DAY}", params={"variant": name}).json()
    assert answer == expected(DAY, name, 4, "easy", 15)
    assert len(answer["table"]) == 11


def test_a_date_after_today_is_not_published_yet_whatever_the_calendar(tmp_path: Path) -> None:
    tomorrow = (datetime.now(UTC).date() + timedelta(days=1)).isoformat()
    db = store_with(tmp_path / "s.db", [Deal(tomorrow, "classic", 3, "classic", "easy", 48, 48, 0.08)])
    client = TestClient(create_app(ServiceSettings(daily_db=db)))
    for path in (f"/daily/{tomorrow}", "/daily/9999-12-31"):
        response = client.get(path)
        assert (response.status_code, response.json()) == (404, {"error": "not published yet"})
