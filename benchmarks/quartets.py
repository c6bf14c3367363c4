"""Quartets cheating check: generated games of 100, 1,000 and 100,000 actions.

Games are played fair from a random deal (random asks of a set the asker holds, truthful
answers, no quartet shown, so that play lasts), which is the slowest case: no prefix is ever
found infeasible, so every action is judged. ``judge`` keeps one matching from action to
action; the baseline, ``judge_every_prefix``, replays every prefix and matches it from
scratch (run on the 100- and 1,000-action games only). Figures are mean wall-clock and CPU
milliseconds per game; the ratio is the baseline's CPU time over ours.

    python benchmarks/quartets.py [--seed N]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from triples.games.quartets import DEFAULT_RULES, QuartetsRules, Verdict, judge, judge_every_prefix

CONTEST_LIMIT_MS = 2000.0
LENGTHS = [(100, 40, 10), (1_000, 10, 2), (100_000, 2, 0)]  # actions, games ours, games baseline


def fair_game(rules: QuartetsRules, length: int, rng: random.Random) -> list[str]:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: rules.cards_per_set]
    cards = [f"{s}{c}" for s in range(1, rules.sets + 1) for c in letters]
    rng.shuffle(cards)
    hands = [set(cards[p * rules.hand_size : (p + 1) * rules.hand_size]) for p in range(rules.players)]
    turn = 0
    actions: list[str] = []
    while len(actions) < length:
        target = rng.choice([p for p in range(rules.players) if p != turn and hands[p]])
        set_number = int(rng.choice(sorted(hands[turn]))[:-1])
        card = f"{set_number}{rng.choice(letters)}"
        if card in hands[target]:
            hands[target].remove(card)
            hands[turn].add(card)
            actions.append(f"{turn + 1} A {target + 1} {card} yes")
        else:
            actions.append(f"{turn + 1} A {target + 1} {card} no")
            turn = target
    return actions


def timed(check: Callable[[list[str]], Verdict], games: list[list[str]]) -> tuple[float, float]:
    """Mean wall-clock and CPU milliseconds of ``check`` per game; every game must be fair."""
    wall = cpu = 0.0
    for actions in games:
        w0, c0 = time.perf_counter(), time.process_time()
        verdict = check(actions)
        wall += time.perf_counter() - w0
        cpu += time.process_time() - c0
        assert verdict == Verdict(None), "a fair game was judged cheated"
    return 1000 * wall / len(games), 1000 * cpu / len(games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print("| actions | games | ours ms/game (wall / cpu) | every prefix ms/game (wall / cpu) | ratio |")
    print("|---|---|---|---|---|")
    verdicts = []
    for length, games_ours, games_baseline in LENGTHS:
        games = [fair_game(DEFAULT_RULES, length, rng) for _ in range(games_ours)]
        wall, cpu = timed(judge, games)
        baseline, ratio, base_cpu = "-", "-", 0.0
        if games_baseline:
            base_wall, base_cpu = timed(judge_every_prefix, games[:games_baseline])
            baseline, ratio = f"{base_wall:.1f} / {base_cpu:.1f}", f"{base_cpu / cpu:.0f}x"
        print(f"| {length:,} | {games_ours} | {wall:.2f} / {cpu:.2f} | {baseline} | {ratio} |")
        if length == 1_000:
            budget = CONTEST_LIMIT_MS / 10
            verdicts.append(f"1,000 actions: {cpu:.2f} ms, {'within' if cpu < budget else 'OVER'} {budget:.0f} ms")
            verdicts.append(
                f"1,000 actions: {ratio} faster than every prefix ({'>=' if cpu * 10 <= base_cpu else '<'} 10x)"
            )
    for line in verdicts:
        print(line)


if __name__ == "__main__":
    main()
