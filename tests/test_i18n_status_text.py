"""The position's impossibilities, the camera mode and a finished game's camera answer in four languages
(issue 16): engine.wording data rendered by companion_app.i18n.text; English is the engine's own text."""
import random

import pytest

from companion_app.i18n.text import error_text
from companion_app.table.devices.fakes import FakeCamera
from engine.errors import GameActionError
from engine.game import Game
from engine.observation import Observation
from engine.reconcile import reconcile_game
from tests.game_helpers import play_out
from tests.web_helpers import each_language, session_with
from vision_helpers import pawn, pos


def test_the_position_status_in_each_language():
    position = pos(monster="h7", facing="E", pools=["h7"], pawns={"red-6/1": pawn("h7", "red", "6/1")})
    status = position.status()
    words = position.status_words()
    assert [p["message"] for p in status] == [str(w) for _, w, _ in words]
    assert status[0]["message"] == "the monster and pawn red 6/1 are both on h7"
    every = each_language(words[0][1])
    assert every["de"] == "das Monster und Rot 6/1 stehen beide auf h7"
    assert every["fr"] == "le monstre et le pion rouge 6/1 sont tous deux sur h7"
    assert every["es"] == "el monstruo y la ficha roja 6/1 están ambos en h7"
    monster_on_pool = next(w for code, w, _ in words if code == "monster-on-pool")
    assert each_language(monster_on_pool)["fr"] == "le monstre se trouve sur la case de flaque de sang h7 (M8)"


def test_the_camera_mode_and_a_finished_game_in_each_language(tmp_path):
    session = session_with(tmp_path, camera=FakeCamera())
    with pytest.raises(GameActionError) as caught:
        session.set_camera_mode("fast")
    assert str(caught.value) == "The camera mode is auto or confirm, not 'fast'"
    assert error_text(caught.value, "de") == "Der Kameramodus ist auto oder confirm, nicht 'fast'"
    game, _ = play_out(Game.new(["red", "blue"], first_player="red", seed=3), random.Random(3))
    assert game.phase == "over"
    answer = reconcile_game(game, Observation.of(game.position))
    (problem,) = answer.problems
    assert problem.code == "no-change-expected"
    assert str(problem.message) == ("the game is in its over phase: no pawn move or tile is read from the camera now")
    assert each_language(problem.message)["es"].startswith("la partida está terminada: ")


def test_a_square_hidden_behind_the_monster_on_the_camera_card_in_each_language():
    from vision.problems import problem_words
    from vision.reader import read_image
    from vision_helpers import make_camera, render

    reading = read_image(render(pos(monster="g7", facing="E"), None, camera=make_camera(tilt_deg=30)))
    (problem,) = reading.problems
    every = each_language(problem_words(problem))
    assert every["en"] == problem["message"] and every["en"].startswith("g6 is hidden behind a piece")
    assert every["fr"].startswith("g6 est cachée derrière une pièce")
    assert every["de"].startswith("g6 ist aus diesem Kamerawinkel hinter einem Teil verdeckt")
    assert every["es"].startswith("g6 queda oculta detrás de una pieza")


def test_two_tiles_in_the_card_zone_on_the_camera_card_in_each_language():
    from vision.problems import problem_words
    from vision.reader import read_image
    from vision.scheme import load_scheme
    from vision_helpers import render

    scheme = load_scheme()
    x, y, w, h = scheme.card_zone_mm
    tile5 = next(i for i, s in scheme.stickers.items() if s.piece == "tile" and str(s.tile) == "5")
    reading = read_image(render(pos(), "8", extra=[(tile5, x + w / 2, y + 20, 0)]))
    problem = next(p for p in reading.problems if p["code"] == "two-tiles")
    every = each_language(problem_words(problem))
    assert every["en"] == problem["message"]
    assert every["es"].startswith("hay más de una lápida en la zona de cartas: ")
    assert every["de"].startswith("mehr als ein Grabstein-Plättchen liegt im Kartenbereich: ")
