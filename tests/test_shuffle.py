from __future__ import annotations

from itertools import islice

import pytest

from triples.shuffle import MAX_SEED, below, shuffled, splitmix64


@pytest.mark.parametrize(
    ("seed", "draws"),
    [
        pytest.param(0, [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F], id="spec-seed-0"),
        pytest.param(1, [0x910A2DEC89025CC1, 0xBEEB8DA1658EEC67, 0xF893A2EEFB32555E], id="seed-1"),
        pytest.param(MAX_SEED, [0xE4D971771B652C20, 0xE99FF867DBF682C9, 0x382FF84CB27281E9], id="seed-max"),
    ],
)
def test_splitmix64_draws(seed: int, draws: list[int]) -> None:
    assert list(islice(splitmix64(seed), 3)) == draws


def test_below_rejects_draws_past_the_last_whole_multiple() -> None:
    # With n = 2^63 + 1 the limit is 2^63 + 1: a draw of 2^64 - 1 must be thrown away.
    n = (1 << 63) + 1
    assert below(iter([(1 << 64) - 1, 5]), n) == 5
    assert below(iter([(1 << 63), 5]), n) == 1 << 63


def test_below_reduces_accepted_draw_modulo_n() -> None:
    assert below(iter([17]), 5) == 2
    assert below(iter([0xE220A8397B1DCDAF]), 52) == 0xE220A8397B1DCDAF % 52


@pytest.mark.parametrize(
    ("seed", "expected"),
    [
        pytest.param(42, [0, 9, 5, 8, 6, 4, 7, 2, 1, 3], id="seed-42"),
        pytest.param(MAX_SEED, [3, 4, 2, 7, 5, 0, 8, 1, 9, 6], id="seed-max"),
    ],
)
def test_shuffled_ten_items(seed: int, expected: list[int]) -> None:
    assert shuffled(range(10), seed) == expected


def test_shuffled_leaves_input_alone_and_keeps_every_item() -> None:
    items = list(range(52))
    out = shuffled(items, 7)
    assert items == list(range(52))
    assert sorted(out) == items


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1], ids=["negative", "too-large"])
def test_shuffled_rejects_seed_out_of_range(seed: int) -> None:
    with pytest.raises(ValueError, match="seed must be an integer from 0 to 18446744073709551615"):
        shuffled(range(3), seed)
