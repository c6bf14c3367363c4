"""What several benchmark scripts share: the closing verdict, the machine's load, the
seed-range options of the scripts that time ``triples rate`` runs, and the package as it was
at an earlier commit, to time beside this one."""

from __future__ import annotations

import argparse
import compileall
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def verdict(failures: list[str]) -> int:
    """Print each failed requirement (or that all were met); the exit status for it."""
    for failure in failures:
        print("FAIL", failure)
    if not failures:
        print("all requirements met")
    return 1 if failures else 0


def load() -> str:
    """The machine's load, printed beside timings: they depend on it."""
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"


def rate_run_options(description: str) -> tuple[argparse.Namespace, int, int]:
    """The options of a script timing ``triples rate`` runs, with its first and last seed;
    prints the run's size and the load before it."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seeds", type=int, default=20_000, help="how many seeds (default 20000)")
    parser.add_argument("--first", type=int, default=1, help="first seed (default 1)")
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each, fastest kept (default 1)")
    args = parser.parse_args()
    first, last = args.first, args.first + args.seeds - 1
    print(f"{args.variant} seeds {first}-{last} on {os.cpu_count()} cores; before: {load()}")
    return args, first, last


def package_at(ref: str, folder: Path) -> Path:
    """The ``triples`` package as it was at git commit ``ref``, unpacked (and compiled) in
    ``folder``; put ``folder`` first on the path (or run from it) to import that one."""
    archive = subprocess.run(["git", "archive", ref, "triples"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    compileall.compile_dir(str(folder / "triples"), quiet=1)
    return folder
