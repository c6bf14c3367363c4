"""``triples explain``: why is this deal hard? The ``explain`` operation's answer as a table for
the terminal (triples/engines/explain.py), or as its JSON with ``--json``."""

from __future__ import annotations

import argparse
from typing import Any

from triples.doors.cli.reading import write
from triples.doors.kit.exits import EXIT_OK, CommandError
from triples.doors.kit.variant_option import variant_help, variant_option
from triples.model.variant import Variant
from triples.model.variants import DEFAULT_VARIANT

DESCRIPTION = """\
Deal a seed and let the fair player (who never sees the stock) play it out; print
the moves where its result falls below the best: those that lost cards (the best
reachable fell), with what the best line plays there instead, and those where it
expected less than the best (its own estimate, made without seeing the stock).
With --moves, those moves are played first and explained too, and the fair
player goes on from there. --json prints the explain operation's answer."""

EXAMPLE = """\
example:
  triples explain --variant sum15 --seed 51
  triples explain --seed 1 --moves 0-3-6 --json"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", type=variant_option, default=DEFAULT_VARIANT, help=variant_help(DEFAULT_VARIANT))
    parser.add_argument("--seed", type=int, required=True, help="the deal's seed (any integer)")
    parser.add_argument(
        "--moves", type=moves_option, default=(), help="moves played first, e.g. 0-2-5,1-3-4 (the explorer's address)"
    )
    parser.add_argument("--json", action="store_true", help="print the explain operation's answer (one JSON line)")


def moves_option(text: str) -> tuple[list[int], ...]:
    """``0-2-5,1-3-4`` as moves; argparse's one-line error for anything else."""
    try:
        return tuple([int(slot) for slot in move.split("-")] for move in text.split(",") if move.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected moves like 0-2-5,1-3-4, not {text!r}") from None


def main(args: argparse.Namespace) -> int:
    import orjson

    from triples.api import run

    variant: Variant = args.variant  # read by variant_option, the default too
    operations: list[Any] = [["new", "g", args.seed, variant.name]]
    operations += [["play", "g", move] for move in args.moves]
    outputs = run([*operations, ["explain", "g"]])
    for number, (move, answer) in enumerate(zip(args.moves, outputs[1:], strict=False), start=1):
        if answer != "ok":
            reason = str(answer).removeprefix("error: ")
            raise CommandError(f"--moves: move {number} ({'-'.join(map(str, move))}) is refused: {reason}")
    answer = outputs[-1]
    if args.json:
        write(orjson.dumps(answer) + b"\n")
    else:
        played = len(args.moves)
        player = (
            f"{played} move{'' if played == 1 else 's'} played, then the fair player," if played else "the fair player"
        )
        write(explanation_text(f"{variant.name}, seed {args.seed}", answer, player).encode())
    return EXIT_OK


def explanation_text(title: str, answer: dict[str, Any], player: str = "the fair player") -> str:
    """The ``explain`` answer for the terminal: a headline (``player`` names who played the
    line), a table of the moves that fall short, and a line on what the table leaves out."""
    moves: list[dict[str, Any]] = answer["moves"]
    lost = answer["lost"]
    outcome = f"{lost} card{'' if lost == 1 else 's'} lost" if lost else "no card lost"
    lines = [f"{title}: the best line clears {answer['best']}; {player} clears {answer['cleared']}: {outcome}."]
    if not moves:
        lines.append("At every move the fair player kept the best and expected no less.")
        return "\n".join(lines) + "\n"
    played = any(move["by"] == "played" for move in moves)
    header = ["move", *(["by"] if played else []), "plays", "cards", "expects", "best", "lost", "the best line plays"]
    rows = [header]
    for move in moves:
        best = str(move["best_before"])
        if move["best_after"] != move["best_before"]:
            best += f" -> {move['best_after']}"
        instead = move["best_line"]
        expected = move["expected"]
        rows.append(
            [
                str(move["turn"]),
                *([move["by"]] if played else []),
                "-".join(map(str, move["move"])),
                " ".join(move["cards"]),
                "-" if expected is None else f"{expected:.2f}",
                best,
                str(move["lost"]) if move["lost"] else "-",
                "" if instead is None else f"{'-'.join(map(str, instead['move']))} ({' '.join(instead['cards'])})",
            ]
        )
    numeric = {0, header.index("expects"), header.index("lost")}
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    for row in rows:
        cells = [
            cell.rjust(width) if column in numeric else cell.ljust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    losing = [str(move["turn"]) for move in moves if move["lost"]]
    lines.append("Listed: the moves that lose cards, and those where the fair player expects less than the best.")
    lines.append(f"Cards are lost at move {', '.join(losing)}." if losing else "No move loses cards.")
    return "\n".join(lines) + "\n"
