"""Hypothesis profiles, a fixture that empties the engines' caches before every test, one
local Dask cluster for every test that rates on a cluster, one private PostgreSQL server for
every test of a store on PostgreSQL (``store_db``: a new store on each backend in turn), and
each test's reports kept on it (``item.report_setup``, ``report_call``) for fixtures that act
on failure.

``default`` is what the normal suite runs: a fixed, modest number of examples, derandomised so
that a CI run is reproducible, and no per-example deadline (timing belongs in benchmarks/, and
the machine is shared). ``long`` is for deep runs: ``pytest --hypothesis-profile=long``.
"""

from __future__ import annotations

import signal
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, settings

from triples.support import caches

if TYPE_CHECKING:
    from distributed import Client, LocalCluster

    from tests.postgres_server import Cluster

# A suite started in the background by a shell without job control inherits SIGINT ignored, and
# so would every command the tests start: their Ctrl-C tests would wait for an exit that never
# comes. The commands' own behaviour with an ignored signal is tested where it is meant.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Operation streams are generated step by step and some examples are large on purpose.
_SLOW_GENERATION = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]

settings.register_profile(
    "default",
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=_SLOW_GENERATION,
)
settings.register_profile(
    "long",
    max_examples=1000,
    deadline=None,
    print_blob=True,
    suppress_health_check=_SLOW_GENERATION,
)
settings.load_profile("default")


@pytest.fixture(autouse=True)
def cold_caches() -> Iterator[None]:
    """Every test starts with every engine cache empty, so that no answer a test checks can
    come from what an earlier test computed (and a test of cold against warm means it)."""
    caches.clear()
    yield


@pytest.fixture(scope="session")
def cluster() -> Iterator[tuple[LocalCluster, Client]]:
    """A LocalCluster of two worker processes (one thread each) and a client of it, started once
    for the whole run (a cluster takes seconds to start); the commands under test connect to its
    scheduler's address as they would to a cluster on other hosts."""
    import logging

    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.CRITICAL
        ) as local,
        Client(local, set_as_default=False) as client,
    ):
        yield local, client


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """Keep each phase's report on the test, so that a fixture's teardown can tell whether the
    test failed (the browser tests save a screenshot only then)."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """A private PostgreSQL server for the whole run (tests/postgres_server.py), started when a
    test first needs it; the tests that need it skip without one, or fail with
    TRIPLES_REQUIRE_POSTGRES=1 (set by .ci/run)."""
    from tests import postgres_server

    reason = postgres_server.missing()
    if reason is not None:
        if postgres_server.REQUIRED:
            pytest.fail(f"PostgreSQL is required (TRIPLES_REQUIRE_POSTGRES=1) but cannot run: {reason}", pytrace=False)
        pytest.skip(f"PostgreSQL tests skipped: {reason}")
    server = postgres_server.start()
    try:
        yield server
    finally:
        from triples.store import close_pools

        close_pools()
        postgres_server.stop(server)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A ``--db`` for a new store, on each backend in turn: a SQLite file that does not exist
    yet, or the URL of a new empty PostgreSQL database."""
    if request.param == "sqlite":
        yield str(tmp_path / "store.db")
        return
    server: Cluster = request.getfixturevalue("postgres")
    yield server.new_database()
    from triples.store import close_pools

    close_pools()  # this process's connections to the test's database
