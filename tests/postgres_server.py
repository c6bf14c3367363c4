"""A private PostgreSQL server for the tests: a cluster made in a temporary folder with Debian's
``initdb`` and ``pg_ctl``, listening only on a unix socket in that folder, and stopped (and the
folder removed) at the end.

The server runs as the ``postgres`` user when the tests run as root (PostgreSQL refuses to run
as root), else as the user running the tests. Without a server (no PostgreSQL binaries, no
psycopg, no ``postgres`` user) the tests that need one skip, saying why; with
TRIPLES_REQUIRE_POSTGRES=1 (set by .ci/run) they fail instead. TRIPLES_POSTGRES_BIN names
another folder of PostgreSQL binaries.

Each test gets a database of its own (``Cluster.new_database``): a store is a database, made
empty as ``createdb`` makes one.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REQUIRED = os.environ.get("TRIPLES_REQUIRE_POSTGRES") == "1"
BINARIES = "/usr/lib/postgresql/*/bin"
PORT = 5432  # only names the socket file: the server listens on no TCP port
TIMEOUT = 60


def binaries() -> Path | None:
    """The folder of the newest PostgreSQL's binaries, or None."""
    chosen = os.environ.get("TRIPLES_POSTGRES_BIN")
    if chosen:
        return Path(chosen) if (Path(chosen) / "initdb").exists() else None
    found = [Path(path) for path in glob.glob(BINARIES) if (Path(path) / "initdb").exists()]
    return max(found, key=lambda path: int(path.parent.name), default=None) if found else None


def runs_as_root() -> bool:
    return os.geteuid() == 0


def missing() -> str | None:
    """Why no server can be started here, or None."""
    for module in ("psycopg", "psycopg_pool"):
        try:
            __import__(module)
        except ImportError:
            return f"no module {module}: pip install -e '.[test]'"
    if binaries() is None:
        where = os.environ.get("TRIPLES_POSTGRES_BIN") or BINARIES
        return f"no PostgreSQL binaries in {where}: install them with `apt-get install postgresql`"
    if runs_as_root():
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root, and there is no postgres user to run the server as"
    return None


def as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if runs_as_root() else command


@dataclass
class Cluster:
    folder: Path  # the data directory is in it, and the socket
    bin: Path
    databases: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def url(self, database: str) -> str:
        return f"postgresql://postgres@/{database}?host={self.folder}&port={PORT}"

    def psql(self, sql: str, database: str = "postgres") -> str:
        """``sql`` run by ``psql`` (as the server's superuser) on ``database`` (a name or a URL);
        what it prints, unaligned."""
        done = subprocess.run(
            [str(self.bin / "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d",
             database if "://" in database else self.url(database),
             "-c", sql],
            capture_output=True, text=True, timeout=TIMEOUT,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout

    def new_database(self) -> str:
        """The URL of a new empty database."""
        name = f"store{next(self.databases)}"
        self.psql(f"CREATE DATABASE {name}")
        return self.url(name)


def start() -> Cluster:
    """A new cluster, started; ``stop`` it afterwards."""
    bin_folder = binaries()
    assert bin_folder is not None
    folder = Path(tempfile.mkdtemp(prefix="triples-pg-"))
    if runs_as_root():
        shutil.chown(folder, "postgres", "postgres")
    cluster = Cluster(folder, bin_folder)
    try:
        run(cluster, "initdb", "-D", str(cluster.data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync")
        # No TCP port, the socket in the folder; durability off, since the tests never crash the server.
        settings = f"-c listen_addresses='' -k {folder} -p {PORT} -c fsync=off -c full_page_writes=off"
        run(cluster, "pg_ctl", "-D", str(cluster.data), "-l", str(folder / "server.log"), "-w", "-o", settings, "start")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return cluster


def stop(cluster: Cluster) -> None:
    """Stop the cluster's server (the one ``start`` started, by its data directory) and remove it."""
    try:
        run(cluster, "pg_ctl", "-D", str(cluster.data), "-m", "immediate", "-w", "stop")  # thrown away: no checkpoint
    finally:
        shutil.rmtree(cluster.folder, ignore_errors=True)


def run(cluster: Cluster, program: str, *args: str) -> None:
    done = subprocess.run(
        as_server_user([str(cluster.bin / program), *args]),
        capture_output=True, text=True, timeout=TIMEOUT, cwd=cluster.folder,
    )  # fmt: skip
    if done.returncode != 0:
        log = cluster.folder / "server.log"
        more = log.read_text() if log.exists() else ""
        raise RuntimeError(f"{program} failed: {done.stderr or done.stdout}{more}")
