"""Mutation scores of the model, dealing, the interpreter and the search, each module against
its own test files: mutmut (configured in pyproject.toml's ``[tool.mutmut]``) for what it
mutates, and ``benchmarks/ast_mutants.py`` for what it skips (import-time code, decorated
handlers, class bodies, constants) and for statement deletion.

Each unit (a module, or the search's package) gets a fresh copy of the tree per engine under
the work directory (``mutants/benchmark/`` by default, git-ignored), so the two engines may run
at once (``--engine mutmut`` and ``--engine ast``). mutmut runs in its copy with the project's
settings, only the unit's files mutated and only its test files selected; each ``ast`` mutant
is written over its copy of the module and the test files run against it in a subprocess
(``-x``, fastest tests first: ``benchmarks/mutation_order.py``). A mutant is killed when a test
fails or it runs past its time limit.

Survivors are listed, each marked equivalent (with the reason kept in
``benchmarks/mutation_equivalents.toml``) or not; the score is killed / (run - equivalent).
Results are saved per unit and engine (``results/`` in the work directory): ``--report``
prints them again (after editing the equivalents), ``--survivors`` runs only the last run's
survivors again (after adding a test). Slow: run it niced (it renices itself), a unit at a
time on a shared machine, with ``--time-box`` and ``--max-mutants`` for a short look.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TextIO

from ast_mutants import Mutant, mutants_of

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "benchmarks" / "mutation_equivalents.toml"
ORDER_PLUGIN = ROOT / "benchmarks" / "mutation_order.py"
SEARCH = tuple(sorted(str(path.relative_to(ROOT)) for path in (ROOT / "triples/engines/search").glob("*.py")))
ROOM = "triples/engines/search/room.py"
DEPTH_TEST = "tests/test_search.py::test_a_recursion_limit_too_tight_for_the_search_is_one_line_and_left_as_it_was"


@dataclass(frozen=True)
class Unit:
    files: tuple[str, ...]
    tests: tuple[str, ...]
    group: str
    # Tests mutmut must leave out: its trampolines add a frame to every call of a mutated
    # function, so a test of the search's depth under a tight recursion limit fails with any
    # mutant (the ast runner, which has no trampolines, runs it).
    not_under_mutmut: tuple[str, ...] = ()


UNITS = {
    "rules": Unit(("triples/model/rules.py",), ("tests/test_rules.py",), "model"),
    "shuffle": Unit(("triples/model/shuffle.py",), ("tests/test_shuffle.py",), "model"),
    "table": Unit(("triples/model/table.py",), ("tests/test_table.py",), "model"),
    "deal": Unit(("triples/model/deal.py",), ("tests/test_deal.py",), "dealing"),
    "session": Unit(
        ("triples/interpreter/session.py",), ("tests/test_session.py", "tests/test_session_rating.py"), "interpreter"
    ),
    # The registry is exercised through the session too (arguments parsed, errors answered).
    "operations": Unit(
        ("triples/interpreter/operations.py",), ("tests/test_operations.py", "tests/test_session.py"), "interpreter"
    ),
    "search": Unit(
        tuple(file for file in SEARCH if file != ROOM),
        ("tests/test_search.py", "tests/test_golden.py"),
        "search",
        (DEPTH_TEST,),
    ),
    # The stack room's own unit: with only it mutated, the depth test runs under mutmut too.
    "room": Unit((ROOM,), ("tests/test_search.py", "tests/test_golden.py"), "search"),
}
GOALS = {"model": 97.0, "dealing": 97.0, "interpreter": 97.0, "search": 90.0}
KILLED = {"killed", "timeout", "segfault", "caught by type check"}
SURVIVED = {"survived", "no tests", "suspicious"}


@dataclass
class Result:
    engine: str  # "mutmut" or "ast"
    id: str  # mutmut's name, or the file and index among ast_mutants.mutants_of's
    file: str
    status: str  # mutmut's word: killed, survived, timeout, no tests, not checked...
    line: int = 0
    scope: str = ""
    kind: str = ""
    before: str = ""
    after: str = ""


# --- the copy of the tree -----------------------------------------------------------------------


def mutmut_config(unit: Unit) -> str:
    """The ``[tool.mutmut]`` section for one unit: the project's, with only the unit's files
    mutated, only its test files selected and the tests ordered fastest first."""
    settings = dict(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"])
    settings["only_mutate"] = list(unit.files)
    settings["pytest_add_cli_args_test_selection"] = list(unit.tests)
    deselected = [argument for test in unit.not_under_mutmut for argument in ("--deselect", test)]
    settings["pytest_add_cli_args"] = [*settings.get("pytest_add_cli_args", []), "-p", "mutation_order", *deselected]
    settings["also_copy"] = [*settings.get("also_copy", []), "mutation_order.py"]
    settings["use_git_change_detection"] = False  # the copy is no repository
    return "[tool.mutmut]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in settings.items())


def fresh_copy(unit: Unit, folder: Path) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    skipped = shutil.ignore_patterns("__pycache__", ".hypothesis", ".pytest_cache")
    for name in ("triples", "tests", "fixtures"):
        shutil.copytree(ROOT / name, folder / name, ignore=skipped)
    shutil.copy2(ORDER_PLUGIN, folder / "mutation_order.py")
    write_project(unit, folder)


def write_project(unit: Unit, folder: Path) -> None:
    """The copy's pyproject.toml: the project's, with the unit's ``[tool.mutmut]`` (written again
    when a run resumes, so that a changed setting, such as the time limit, applies; mutmut then
    tries again the mutants that timed out)."""
    project = (ROOT / "pyproject.toml").read_text()
    project = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", project)
    (folder / "pyproject.toml").write_text(project.rstrip() + "\n\n" + mutmut_config(unit))


def spread(items: list[str], cap: int | None) -> list[str]:
    """At most ``cap`` of ``items``, evenly spread over them (all of them without a cap)."""
    if cap is None or len(items) <= cap:
        return items
    return [items[i * len(items) // cap] for i in range(cap)]


def scope_of(name: str) -> str:
    """``Class.method`` or ``function`` from a mutmut mutant's name."""
    mangled = name.partition("__mutmut_")[0].rpartition(".")[2]
    if mangled.startswith("x_"):
        return mangled[2:]
    _, cls, method = mangled.split("ǁ")
    return f"{cls}.{method}"


def line_of(file: str, scope: str, before: str) -> int:
    """The line of ``before``'s first line within ``scope`` (0 when not found)."""
    text = (ROOT / file).read_text()
    lines = text.splitlines()
    first, last = 1, len(lines)
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef) and scope.startswith(node.name + "."):
            for member in node.body:
                if isinstance(member, ast.FunctionDef) and f"{node.name}.{member.name}" == scope:
                    first, last = member.lineno, member.end_lineno or last
        elif isinstance(node, ast.FunctionDef) and node.name == scope and node.col_offset == 0:
            first, last = node.lineno, node.end_lineno or last
    wanted = before.splitlines()[0] if before else ""
    return next((n for n in range(first, last + 1) if lines[n - 1].strip() == wanted), 0)


# --- mutmut ---------------------------------------------------------------------------------------


def run_mutmut(unit: Unit, folder: Path, args: argparse.Namespace, only: list[str] | None) -> list[Result]:
    names: list[str] = []
    if args.max_mutants is not None or only is not None:
        names = only if only is not None else spread(mutmut_names(unit, folder), args.max_mutants)
        if not names:
            return []
    env = {**os.environ, "MUTATION_DURATIONS": str(folder / "mutants" / "mutmut-stats.json")}
    command = [str(Path(sys.executable).parent / "mutmut"), "run", "--max-children", str(args.jobs), *names]
    with open(folder / "mutmut.log", "w") as log:
        code = run_boxed(command, folder, env, log, args.time_box * 60)
    if code is None:
        print(f"  mutmut stopped at the time box ({args.time_box} min)")
    elif code != 0:
        tail = (folder / "mutmut.log").read_text(errors="replace")[-2000:]
        print(f"  mutmut failed (exit status {code}); the end of {folder / 'mutmut.log'}:\n{tail}")
    from mutmut.stats import status_by_exit_code

    results = []
    for file in unit.files:
        meta = folder / "mutants" / f"{file}.meta"
        codes = json.loads(meta.read_text())["exit_code_by_key"] if meta.exists() else {}
        for name, code in codes.items():
            status = status_by_exit_code[code]
            if names and name not in names:
                status = "not checked"
            result = Result("mutmut", name, file, status, scope=scope_of(name))
            if status in SURVIVED:
                diff = subprocess.run(
                    [command[0], "show", name], cwd=folder, capture_output=True, text=True, env=env
                ).stdout.splitlines()
                result.before = "\n".join(line[1:].strip() for line in diff if line[:1] == "-" and line[:3] != "---")
                result.after = "\n".join(line[1:].strip() for line in diff if line[:1] == "+" and line[:3] != "+++")
                result.line = line_of(file, result.scope, result.before)
            results.append(result)
    return results


def mutmut_names(unit: Unit, folder: Path) -> list[str]:
    """The names of the mutants mutmut makes of the unit's files, in its order."""
    script = (
        "import sys\nfrom pathlib import Path\n"
        "from mutmut.mutation.file_mutation import mutate_file_contents\n"
        "from mutmut.utils.format_utils import get_mutant_name\n"
        "for f in sys.argv[1:]:\n"
        "    for n in mutate_file_contents(f, Path(f).read_text(), None, None).mutant_names:\n"
        "        print(get_mutant_name(Path(f), n))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, *unit.files], cwd=folder, capture_output=True, text=True)
    return done.stdout.split()


def run_boxed(command: list[str], folder: Path, env: dict[str, str], log: TextIO, seconds: float) -> int | None:
    """Run ``command`` in its own process group; past ``seconds``, interrupt it (mutmut keeps
    every result it has) and then kill it. Its exit status, or None when it ran out of time."""
    process = subprocess.Popen(
        command, cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        return process.wait(timeout=seconds)
    except KeyboardInterrupt:  # interrupted: mutmut keeps what it has, and stops its workers
        os.killpg(process.pid, signal.SIGINT)
        process.wait()
        raise
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        return None


# --- the ast mutants ---------------------------------------------------------------------------


def run_ast(
    unit: Unit, folder: Path, args: argparse.Namespace, only: set[tuple[str, ...]] | None, done: set[str]
) -> list[Result]:
    """Each ast mutant of the unit (or those of ``only``, by their keys; none of ``done``, by
    their ids) against the unit's tests."""
    command, env, limit = baseline(unit, folder, args.slack)
    planned: list[tuple[str, int, Mutant]] = []
    for file in unit.files:
        found = mutants_of((ROOT / file).read_text())
        planned += [(file, index, mutant) for index, mutant in enumerate(found)]
    if only is not None:
        planned = [item for item in planned if key(item[0], item[2]) in only]
    keep = set(spread([f"{file}:{index}" for file, index, _ in planned], args.max_mutants))
    deadline = time.monotonic() + args.time_box * 60
    results = []
    for file, index, mutant in planned:
        result = Result("ast", f"{file}:{index}", file, "not checked", mutant.line, mutant.scope, mutant.kind)
        result.before, result.after = mutant.before, mutant.after
        if result.id in keep and result.id not in done and time.monotonic() < deadline:
            result.status = run_ast_mutant(folder, file, mutant.source, command, env, limit)
        results.append(result)
        if len(results) % 25 == 0:
            tried = [r for r in results if r.status != "not checked"]
            survived = sum(r.status in SURVIVED for r in tried)
            print(f"  ast: {len(results)}/{len(planned)}, {len(tried)} run, {survived} survived", flush=True)
    if time.monotonic() >= deadline:
        print(f"  ast stopped at the time box ({args.time_box} min)")
    return results


def baseline(unit: Unit, folder: Path, slack: float) -> tuple[list[str], dict[str, str], float]:
    """The unit's test command in its copy, run once unmutated (it must pass; each test's time is
    recorded for the ordering), its environment for the mutants, and a mutant's time limit."""
    durations = folder / "durations.json"
    env = {**os.environ, "MUTATION_RECORD": str(durations)}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "mutation_order"]
    command += unit.tests
    start = time.monotonic()
    clean = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    if clean.returncode != 0:
        raise SystemExit(f"the unmutated tests fail:\n{clean.stdout[-3000:]}")
    limit = (10 + 4 * (time.monotonic() - start)) * slack
    return command, {**os.environ, "MUTATION_DURATIONS": str(durations)}, limit


def check_timeouts(name: str, engine: str, before: list[Result], args: argparse.Namespace) -> list[Result]:
    """The unit's mutants that ran out of time, run again as source mutants in a copy of their
    own, with ``--slack`` times the limit: a survivor slowed by a loaded machine (or by mutmut's
    trampolines, which double the cost of a call) must not pass for a kill. A mutmut mutant's
    source is what ``mutmut apply`` writes in the copy it ran in."""
    unit = UNITS[name]
    folder = args.work / name / f"{engine}-timeouts"
    fresh_copy(unit, folder)
    command, env, limit = baseline(unit, folder, args.slack)
    sources = {
        f"{file}:{index}": m.source
        for file in unit.files
        for index, m in enumerate(mutants_of((ROOT / file).read_text()))
    }
    checked = []
    for result in before:
        if result.status != "timeout":
            continue
        if engine == "mutmut":
            ran_in = args.work / name / "mutmut"
            subprocess.run(
                [str(Path(sys.executable).parent / "mutmut"), "apply", result.id],
                cwd=ran_in,
                check=True,
                capture_output=True,
            )
            source = (ran_in / result.file).read_text()
            shutil.copy2(ROOT / result.file, ran_in / result.file)
        else:
            source = sources[result.id]
        status = run_ast_mutant(folder, result.file, source, command, env, limit)
        print(f"  {result.id}: {status}", flush=True)
        checked.append(Result(**{**asdict(result), "status": status}))
    return checked


def run_ast_mutant(folder: Path, file: str, source: str, command: list[str], env: dict[str, str], limit: float) -> str:
    """Run the tests against the module ``file`` of the copy in ``folder`` replaced by ``source``."""
    path = folder / file
    original = path.read_text()
    cached = path.parent / "__pycache__"
    try:
        path.write_text(source)
        for stale in cached.glob(f"{path.stem}.*.pyc"):  # a stale .pyc of the same size and second
            stale.unlink()
        quiet = subprocess.DEVNULL
        process = subprocess.Popen(command, cwd=folder, env=env, stdout=quiet, stderr=quiet, start_new_session=True)
        try:
            code = process.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return "timeout"
        except BaseException:  # interrupted: leave no test run behind
            os.killpg(process.pid, signal.SIGKILL)
            raise
        return "survived" if code == 0 else "killed"
    finally:
        path.write_text(original)
        for stale in cached.glob(f"{path.stem}.*.pyc"):
            stale.unlink()


# --- equivalents and the report --------------------------------------------------------------------


def key(file: str, mutant: Mutant | Result) -> tuple[str, ...]:
    return (file, mutant.scope, mutant.before, mutant.after)


def load_equivalents() -> dict[tuple[str, ...], str]:
    """(file, scope, before, after) of each mutant known to be equivalent, with the reason; an
    entry may list several ``after`` texts (the same reason for each), or give ``"*"`` for both
    texts: every survivor in that scope (a function whose every effect is on speed)."""
    found: dict[tuple[str, ...], str] = {}
    for entry in tomllib.loads(EQUIVALENTS.read_text()).get("equivalent", []):
        afters = entry["after"] if isinstance(entry["after"], list) else [entry["after"]]
        for after in afters:
            found[(entry["file"], entry["scope"], entry["before"].strip(), after.strip())] = entry["why"]
    return found


def report(results: dict[str, list[Result]], command: str) -> int:
    equivalents = load_equivalents()
    used: set[tuple[str, ...]] = set()
    rows, failures = [], []
    groups: dict[str, list[int]] = {}
    for name, unit in UNITS.items():
        if name not in results:
            continue
        for file in unit.files:
            mine = [r for r in results[name] if r.file == file]
            run = [r for r in mine if r.status in KILLED | SURVIVED]
            killed = sum(r.status in KILLED for r in run)
            survivors = sorted((r for r in run if r.status in SURVIVED), key=lambda r: r.line)
            equivalent = 0
            for r in survivors:
                whole_scope = (file, r.scope, "*", "*")
                why = equivalents.get(key(file, r)) or equivalents.get(whole_scope)
                used.add(key(file, r) if key(file, r) in equivalents else whole_scope)
                equivalent += why is not None
                mark = f"equivalent: {why}" if why else "NOT EQUIVALENT"
                print(f"  {file}:{r.line} {r.scope} [{r.engine} {r.kind or r.status}] {mark}")
                print("      " + r.before.replace("\n", "\n      "))
                print("    ->" + r.after.replace("\n", "\n      "))
            score = 100.0 * killed / max(1, len(run) - equivalent)
            not_run = len(mine) - len(run)
            counts = [len(run), killed, equivalent]
            print(
                f"{file}: {len(run)} mutants ({sum(r.engine == 'ast' for r in run)} ast), {killed} killed, "
                f"{equivalent} equivalent, {len(survivors) - equivalent} not: {score:.1f}%"
                + (f" ({not_run} not run)" if not_run else "")
            )
            rows.append(
                f"| `{file.removeprefix('triples/')}` | {counts[0]} | {counts[1]} | {counts[2]} | {score:.1f}% |"
            )
            total = groups.setdefault(unit.group, [0, 0, 0])
            groups[unit.group] = [a + b for a, b in zip(total, counts, strict=True)]
    print()
    print("| module | mutants | killed | equivalent | score |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    for group, (run_count, killed, equivalent) in groups.items():
        score = 100.0 * killed / max(1, run_count - equivalent)
        goal = GOALS[group]
        print(f"{group}: {run_count} mutants, {killed} killed, {equivalent} equivalent: {score:.1f}%, goal {goal}%")
        if score < GOALS[group]:
            failures.append(f"{group}: {score:.1f}% < {GOALS[group]}%")
    for stale in sorted(set(equivalents) - used):
        if any(stale[0] in unit.files for name, unit in UNITS.items() if name in results):
            print("note: an equivalent no survivor matched:", " | ".join(stale))
    print(f"command: {command}")
    for failure in failures:
        print("FAIL", failure)
    print("all requirements met" if not failures else "requirements not met")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument(
        "--modules", default=",".join(UNITS), help=f"units to run, comma-separated ({', '.join(UNITS)})"
    )
    parser.add_argument("--engine", choices=["both", "mutmut", "ast"], default="both")
    parser.add_argument("--max-mutants", type=int, help="run at most this many mutants per unit and engine, spread out")
    parser.add_argument("--time-box", type=float, default=180, help="minutes per unit and engine (default 180)")
    parser.add_argument("--jobs", type=int, default=1, help="mutmut's worker processes (default 1)")
    parser.add_argument("--nice", type=int, default=10, help="niceness added to this process and its children")
    parser.add_argument("--work", type=Path, default=ROOT / "mutants" / "benchmark", help="work directory")
    parser.add_argument("--report", action="store_true", help="print the saved results again; run nothing")
    parser.add_argument("--survivors", action="store_true", help="run only the last run's survivors again")
    parser.add_argument("--resume", action="store_true", help="go on with a run stopped (by its time box)")
    parser.add_argument(
        "--timeouts", action="store_true", help="run the last run's timed-out mutants again, as source mutants"
    )
    parser.add_argument("--slack", type=float, default=1.0, help="times the ast runner's time limit (default 1)")
    args = parser.parse_args()
    names = [name for name in args.modules.split(",") if name]
    unknown = [name for name in names if name not in UNITS]
    if unknown:
        parser.error(f"unknown modules: {', '.join(unknown)}")
    os.nice(args.nice)
    saved = args.work / "results"
    saved.mkdir(parents=True, exist_ok=True)
    engines = ["mutmut", "ast"] if args.engine == "both" else [args.engine]
    results: dict[str, list[Result]] = {}
    for name in names:
        unit = UNITS[name]
        for engine in engines if not args.report else []:
            # Each engine has its own copy and its own results: the two may run at once.
            path, folder = saved / f"{name}-{engine}.json", args.work / name / engine
            before = [Result(**r) for r in json.loads(path.read_text())] if path.exists() else []
            print(f"{name}, {engine}: {', '.join(unit.files)} against {', '.join(unit.tests)}", flush=True)
            if args.resume and engine == "mutmut" and folder.exists():
                write_project(unit, folder)  # mutmut resumes in the copy it ran in
                shutil.copy2(ORDER_PLUGIN, folder / "mutation_order.py")
            elif not args.timeouts:
                fresh_copy(unit, folder)
            start = time.monotonic()
            survivors = [r for r in before if r.status in SURVIVED] if args.survivors else None
            if args.timeouts:
                fresh = check_timeouts(name, engine, before, args)
            elif engine == "mutmut":
                fresh = run_mutmut(unit, folder, args, None if survivors is None else [r.id for r in survivors])
            else:
                wanted = None if survivors is None else {key(r.file, r) for r in survivors}
                done = {r.id for r in before if r.status != "not checked"} if args.resume else set()
                fresh = run_ast(unit, folder, args, wanted, done)
            # A rerun of survivors or a resumed run keeps every other result; a full run replaces them.
            kept = {r.id: r for r in before} if args.survivors or args.resume or args.timeouts else {}
            for r in fresh:
                if r.status != "not checked" or r.id not in kept:
                    kept[r.id] = r
            path.write_text(json.dumps([asdict(r) for r in kept.values()], indent=1))
            print(f"  {time.monotonic() - start:.0f} s", flush=True)
        for engine in ("mutmut", "ast"):
            path = saved / f"{name}-{engine}.json"
            if path.exists():
                results.setdefault(name, []).extend(Result(**r) for r in json.loads(path.read_text()))
    shown = " ".join(sys.argv[1:])
    return report(results, f"nice python benchmarks/mutation.py {shown}".strip())


if __name__ == "__main__":
    sys.exit(main())
