import pytest

from engine.geometry import (
    CORNERS,
    SQUARES,
    WALL_LETTERS,
    E,
    N,
    S,
    W,
    monster_next,
    neighbour,
    parse_direction,
    parse_square,
    square_name,
    turn_right,
    wall_letter,
    wrap,
)


def test_156_squares_named_a1_to_p11():
    assert len(SQUARES) == 156
    assert square_name(SQUARES[0]) == "a1" and square_name(SQUARES[-1]) == "p11"
    assert {square_name(s) for s in CORNERS} == {"a1", "p11"}


@pytest.mark.parametrize("bad", ["m1", "a8", "d11", "q5", "a0", "a12", "", "11a", 5, None])
def test_bad_square_names_are_refused_with_the_name(bad):
    with pytest.raises(ValueError) as exc:
        parse_square(bad)
    assert repr(bad) in str(exc.value) or str(bad) in str(exc.value)


def test_every_border_side_has_a_letter_printed_twice():
    border = [(s, d) for s in SQUARES for d in range(4) if neighbour(s, d) is None]
    assert len(border) == 54 == len(WALL_LETTERS)
    letters = [wall_letter(s, d) for s, d in border]
    assert sorted(set(letters)) == sorted("ABCDEFGHIJKLMNOPQRSTUVWXYZ*")
    assert all(letters.count(x) == 2 for x in set(letters))


@pytest.mark.parametrize("start,heading,end,letter", [
    ("a6", W, "p6", "V"), ("m2", N, "d10", "N"), ("a1", N, "p11", "A"), ("a1", W, "p11", "*"),
    ("e11", S, "l1", "L"), ("l1", E, "e11", "M"), ("p5", N, "a7", "T"),
])
def test_wrap_rule_examples_from_board_md(start, heading, end, letter):
    sq, got = wrap(parse_square(start), heading)
    assert (square_name(sq), got) == (end, letter)
    # re-entering square carries the same letter on the opposite side
    assert wall_letter(sq, (heading + 2) % 4) == letter


def test_wrap_is_its_own_inverse_and_matches_letters():
    for (sq, d), letter in WALL_LETTERS.items():
        back, _ = monster_next(sq, d)
        assert wall_letter(back, (d + 2) % 4) == letter


def test_directions():
    assert turn_right(N) == E and turn_right(W) == N
    assert parse_direction("s") == S
    with pytest.raises(ValueError):
        parse_direction("NE")
