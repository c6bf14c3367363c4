"""How long the command takes to start, beside the interpreter's own start-up.

Runs each command --runs times (default 20) in turn, interleaved so that a busy moment of the
machine falls on all of them alike, and prints the median and the best wall time of each, the
median over `python -c pass` (the floor), and the median and best CPU time (user and system),
the steadier figure on a busy machine:
- `python -c pass`: the interpreter alone;
- `pydantic model`: a script that defines and builds one small pydantic model, what any
  program pays to use one, plugins off as the command line has them (a quick batch does not:
  arguments of exactly their fields' types are taken without pydantic);
- `python -c "import triples"`: the package's import;
- `triples run` of a one-operation batch on stdin (`python -m triples run`);
- `triples` with no command, the same batch.
With `--before REF` the last three also run on the package as it was at git commit REF (taken
with `git archive` into a temporary folder), interleaved with the others: before and after in
the same run. The goal: a one-operation batch within 120 ms, and `import triples` well below
it. Then `python -X importtime` of the batch lists the ten modules that cost the most (their
own time, the least of five runs).

Bytecode is compiled first and every child runs with it, as an installed package does
(`PYTHONDONTWRITEBYTECODE` would otherwise make each start compile every module it imports).

    python benchmarks/startup.py [--runs N] [--before REF]
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import package_at

BATCH = b'[["new","g",1]]'
GOAL_MS = 120
ROOT = Path(__file__).resolve().parent.parent
# Children start here: ``-m`` and ``-c`` put the working folder first on the path, and a
# checkout's own ``triples`` there would hide the package under test.
NEUTRAL = tempfile.gettempdir()
PYDANTIC_MODEL = """\
import sys, types
loader = types.ModuleType("pydantic.plugin._loader")  # no plugins, as the command line has it
loader.get_plugins = lambda: ()
sys.modules[loader.__name__] = loader
from pydantic import BaseModel, ConfigDict
class Rules(BaseModel):
    model_config = ConfigDict(frozen=True, strict=True)
    slots: int
Rules(slots=10)
"""
PYTHON = [sys.executable]
COMMANDS = {
    "python -c pass": [*PYTHON, "-c", "pass"],
    "pydantic model": [*PYTHON, "-c", PYDANTIC_MODEL],
    'python -c "import triples"': [*PYTHON, "-c", "import triples"],
    "triples run (one operation)": [*PYTHON, "-m", "triples", "run"],
    "triples (no command)": [*PYTHON, "-m", "triples"],
}
OF_THE_PACKAGE = ('python -c "import triples"', "triples run (one operation)", "triples (no command)")


def child_environment(package_root: Path | None) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    if package_root is not None:  # this folder's ``triples`` comes before the installed one
        env["PYTHONPATH"] = str(package_root)
    return env


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """The wall time and the CPU time (user and system) of one run of ``command``."""
    cpu, started = children_cpu(), time.perf_counter()
    subprocess.run(command, input=BATCH, stdout=subprocess.DEVNULL, check=True, env=env, cwd=NEUTRAL)
    return time.perf_counter() - started, children_cpu() - cpu


def costliest_imports(count: int, runs: int = 5) -> list[tuple[int, str]]:
    """The modules of ``triples run`` that cost the most, each by its least own time over ``runs``
    runs of ``python -X importtime`` (one run alone is at the mercy of a busy moment)."""
    least: dict[str, int] = {}
    for _ in range(runs):
        done = subprocess.run(
            [*PYTHON, "-X", "importtime", "-m", "triples", "run"],
            input=BATCH,
            capture_output=True,
            check=True,
            env=child_environment(None),
            cwd=NEUTRAL,
        )
        for line in done.stderr.decode().splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            own, _, name = line.removeprefix("import time:").split("|")
            least[name.strip()] = min(int(own), least.get(name.strip(), int(own)))
    return sorted(((own, name) for name, own in least.items()), reverse=True)[:count]


def measure(runs: int, before: Path | None) -> dict[str, list[tuple[float, float]]]:
    plans: list[tuple[str, list[str], dict[str, str]]] = [
        (name, command, child_environment(None)) for name, command in COMMANDS.items()
    ]
    if before is not None:
        plans += [(f"{name}, before", COMMANDS[name], child_environment(before)) for name in OF_THE_PACKAGE]
    times: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in plans}
    for _ in range(runs):
        for name, command, env in plans:
            times[name].append(timed(command, env))
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--before", metavar="REF", help="also time the package as it was at this git commit")
    args = parser.parse_args()
    compileall.compile_dir(str(ROOT / "triples"), quiet=1)
    with tempfile.TemporaryDirectory() as folder:
        before = package_at(args.before, Path(folder)) if args.before else None
        times = measure(args.runs, before)
    floor = statistics.median(wall for wall, _ in times["python -c pass"])
    print(f"start-up, {args.runs} runs each (load average {os.getloadavg()[0]:.1f} at the end):")
    print(f"  {'':<38} {'wall time: median':>17} {'best':>6} {'over pass':>9}  {'CPU time: median':>16} {'best':>6}")
    for name, values in times.items():
        walls, cpus = [1000 * wall for wall, _ in values], [1000 * cpu for _, cpu in values]
        median = statistics.median(walls)
        print(
            f"  {name:<38} {median:14.1f} ms {min(walls):6.1f} {median - 1000 * floor:+9.1f}"
            f"  {statistics.median(cpus):13.1f} ms {min(cpus):6.1f}"
        )
    print("costliest imports of `triples run` (own time, the least of 5 runs):")
    for own, name in costliest_imports(10):
        print(f"  {own / 1000:6.1f} ms  {name}")
    batch = statistics.median(wall for wall, _ in times["triples run (one operation)"])
    met = batch * 1000 <= GOAL_MS
    print(f"goal: a one-operation batch within {GOAL_MS} ms: {'met' if met else 'NOT met'} ({1000 * batch:.0f} ms)")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
