"""What the camera side, the follow-up and the game log say, in four languages.

Each sentence comes from a real engine result (a reconcile answer, a table difference, a game's
note) as wording data (engine.wording); companion_app.i18n.text renders it: English is exactly the
engine's own text, the other languages keep every square and rule id and translate pawns and colours.
"""
import random
import re
import time

from companion_app.i18n.text import render
from companion_app.table.devices.fakes import FakeReading
from engine.deck import tile_words
from engine.game import Game
from engine.position import Position
from engine.reconcile import Observation, reconcile
from engine.tablediff import new_round_fix, table_fixes
from tests.game_helpers import full_placement, play_out
from tests.test_engine_reconcile import BASE, hide, play
from tests.test_table_loop import _entered, _started
from tests.web_helpers import each_language, show_table

NAMES = re.compile(r"\b[a-p](1[01]|[1-9])\b|\b[GPMTBA]\d+\b")   # squares and rule ids


def names(text: str) -> list[str]:
    return sorted(m.group(0) for m in NAMES.finditer(text))


def check(words, english: str) -> dict[str, str]:
    """``words`` renders as ``english`` in English and keeps its squares and rule ids elsewhere."""
    every = each_language(words)
    assert every["en"] == render(words, "en") == english == str(words)
    for lang in ("fr", "de", "es"):
        assert "%(" not in every[lang] and every[lang] != english, (lang, every[lang])
        assert names(every[lang]) == names(english), (lang, english, every[lang])
    return every


def test_an_ambiguous_reading_in_each_language():
    before = Position.from_setup(BASE)
    after = play(before, "red-3/4", "SS")
    problem = reconcile(before, Observation.of(after, hide("k3", "k5", "k7")), "red").problems[0]
    assert problem.code == "ambiguous"
    every = check(problem.message, str(problem.message))
    assert "Rot 3/4" in every["de"] and "Rot 2/5" in every["de"] and "verdeckt, eine Hand?" in every["de"]
    assert "rouge 3/4" in every["fr"] and "couverte, une main\u00a0?" in every["fr"]
    assert "découvrez k3 (" in every["fr"]   # the one square to uncover
    assert "la ficha roja 2/5" in every["es"] and "destapa" in every["es"]


def test_an_unexplained_reading_and_an_unseen_destination_in_each_language():
    before = Position.from_setup(BASE)
    moved = play(before, "blue-6/1", "I")           # blue enters, but red is to move (G3)
    problem = reconcile(before, Observation.of(moved), "red").problems[0]
    assert problem.code == "unexplained" and "Blue 6/1 changed but it is red's turn" in str(problem.message)
    every = check(problem.message, str(problem.message))
    assert "Blau 6/1 hat sich verändert, aber Rot ist am Zug" in every["de"]
    after = play(before, "red-2/5", "NN")
    problem = reconcile(before, Observation.of(after, hide("k5")), "red").problems[0]
    assert problem.code == "destination-unseen"
    every = check(problem.message, str(problem.message))
    assert every["es"].endswith("destapa k5")


def test_follow_up_instructions_in_each_language():
    before = Position.from_setup(BASE)
    after = play(before, "red-2/5", "EW")           # red 2/5 pushes the stone on l7 to m7 and comes back
    target = after.to_setup()
    target["monster"] = {"at": "b1", "facing": "N"}
    fixes = table_fixes(target, before.to_setup())
    texts = [str(f.text) for f in fixes]
    assert "move the stone from l7 to m7" in texts and "move the monster from a1 to b1 and turn it to face N" in texts
    assert "turn red 2/5 on k7 over to its black side" in texts
    german = {str(f.text): check(f.text, str(f.text))["de"] for f in fixes}
    assert german["turn red 2/5 on k7 over to its black side"] == "dreht Rot 2/5 auf k7 auf die schwarze Seite"
    assert german["move the stone from l7 to m7"] == "legt den Stein von l7 nach m7"
    deck = new_round_fix(tile_words("prey-1"))
    assert str(deck.text) == "take the tile one prey out of the card zone and shuffle all 8 tombstone tiles into a new " \
                        "face-down deck for round 2 (G9)"
    assert "la tuile une proie" in check(deck.text, str(deck.text))["fr"]


def test_follow_ups_of_random_games_render_as_the_engine_says_them():
    """Every follow-up between two positions of random games: English is the engine's text."""
    seen = 0
    for seed in range(4):
        game = Game.new(["red", "blue", "green"], first_player="red", seed=seed)
        rng = random.Random(seed)

        def each(before, action, after):
            nonlocal seen
            for f in table_fixes(after.position.to_setup(), before.position.to_setup()):
                assert render(f.text, "en") == str(f.text)
                for lang in ("fr", "de", "es"):
                    assert names(render(f.text, lang)) == names(str(f.text))
                seen += 1

        play_out(game, rng, each)
    assert seen > 100


def test_the_game_log_of_random_games_in_each_language():
    """Every note of whole random games (basic and advanced setups): English is ``game.note``."""
    notes = set()
    for seed in range(6):
        colours = ["red", "blue", "green", "yellow", "purple", "black"][: 2 + seed]
        game = Game.new(colours, first_player=colours[0], seed=seed, setup="advanced" if seed % 2 else "basic",
                        prey3_variant=seed == 4)
        rng = random.Random(seed)
        if game.phase == "placement":
            for action in full_placement():
                game = game.apply(action)
                check(game.note, str(game.note))

        def each(before, action, after):
            check(after.note, str(after.note))
            notes.update(re.findall(r"Tile|Round \d is over|wins|is the new first player", str(after.note)))

        play_out(game, rng, each)
    assert {"Tile", "Round 1 is over", "wins", "is the new first player"} <= notes, notes


def test_the_session_log_and_camera_view_are_said_in_every_language(tmp_path):
    s, camera, leds = _started(tmp_path)
    table = s.game.position.to_setup()
    table["monster"] = {"at": "b1", "facing": "N"}          # the new game's table: the monster misplaced
    camera.show(FakeReading(True, table))
    view = s.camera_view()
    needs = each_language(view["needs"])
    assert needs["en"] == str(view["needs"]) == ("Set up the board for the new game first: move the monster "
                                            "from b1 to a1 and turn it to face E")
    assert needs["de"] == ("Baut den Spielplan für das neue Spiel auf, bevor es weitergeht: stellt das "
                           "Monster von b1 nach a1 und dreht es nach Osten")
    assert each_language(view["follow"]["why"])["fr"] == "Installez le plateau pour la nouvelle partie"
    fix = view["follow"]["fixes"][0]
    said = each_language(fix["text"])
    assert said["en"] == str(fix["text"]) and said["es"] == "mueve el monstruo de b1 a a1 y gíralo hacia el este"
    show_table(camera, s)
    camera.show(FakeReading(True, _entered(s, "blue-6/1")))   # blue moves on red's turn (G3)
    view = s.camera_view()
    assert view["change"]["kind"] == "refused"
    assert each_language(view["why_not"])["en"] == str(view["why_not"])
    assert each_language(view["why_not"])["de"].startswith("keine erlaubte Änderung erklärt, was die Kamera sieht: ")
    assert "Blau 6/1" in each_language(view["why_not"])["de"]
    assert each_language(view["differences"]) == {
        "en": [{"square": "p11", "expected": "empty", "seen": "blue 6/1 (black)"}],
        "fr": [{"square": "p11", "expected": "vide", "seen": "le pion bleu 6/1 (face noire)"}],
        "de": [{"square": "p11", "expected": "leer", "seen": "Blau 6/1 (schwarze Seite)"}],
        "es": [{"square": "p11", "expected": "vacía", "seen": "la ficha azul 6/1 (cara negra)"}]}
    state = s.state()
    first = state["log"][0]
    assert each_language(first["text"]) == {"en": "New game, basic setup.", "fr": "Nouvelle partie, mise en place de base.",
                                  "de": "Neues Spiel, Grundaufbau.", "es": "Nueva partida, preparación básica."}
    for colour in ("red", "blue"):
        label = next(x for x in s.game.unmoved if s.game.position.pawn(x).colour == colour)
        s.act({"type": "move", "pawn": label, "moves": ""})
    s.undo()                     # the log is rebuilt from the journal: still in every language
    log = s.state()["log"]
    moved = [e for e in log if e["seq"] == 1]
    german = each_language(moved[0]["text"])["de"] if moved else ""
    assert german.startswith("Rot ") and "wird umgedreht (G3)" in german
    assert each_language(log[-1]["text"])["fr"] == "Annulé\u00a0: retour à la position d'avant la dernière action."
    assert each_language(log[0]["text"]) == each_language(first["text"])


def test_the_camera_workers_status_in_each_language():
    """The camera worker's status line (cannot open, steady …) is said in every language."""
    from companion_app.table.camera.watcher import CameraWorker
    from engine.position import basic_position
    from table_helpers import TableSource, wait_for
    from vision.pipeline import TableCamera

    updates: list = []
    tries = []

    def open_source():
        tries.append(1)
        if len(tries) == 1:
            raise OSError("no camera at /dev/video0")
        return TableSource(basic_position().to_setup())

    worker = CameraWorker(open_source, TableCamera(None).feed, updates.append, fps=20.0, stable_frames=3,
                          read_timeout=0.5, backoff=(0.05, 0.2)).start()
    try:
        failed = wait_for(lambda: next((u for u in updates if u.status["state"] == "failed"), None), what="failure")
        every = each_language(failed.status["message"])
        assert every["en"] == failed.status["message"]
        assert every["de"].startswith("die Kamera lässt sich nicht öffnen (no camera at /dev/video0); neuer Versuch in ")
        assert every["fr"].startswith("impossible d'ouvrir la caméra (no camera at /dev/video0)\u00a0; nouvel essai dans ")
        steady = wait_for(lambda: next((u for u in updates if u.stable), None), what="stable")
        assert each_language(steady.status["message"])["es"] == "vigilando: la lectura es estable"
    finally:
        worker.close()
    assert each_language(worker.status()["message"])["de"] == "die Kamera ist ausgeschaltet"


NOT_LOCATED_WORDS = r"located|localis|repéré|erkannt|gefunden|localiz"


def test_a_board_not_located_is_said_once_in_each_language():
    """The camera worker's line and the refused confirm for a frame without the board say "not located"
    once (vision's problem already opens with "board not located: …"), in every language."""
    import numpy as np

    from companion_app.table.camera.readings import action_for, reconcile_reading
    from companion_app.table.camera.watcher import CameraWorker
    from table_helpers import wait_for
    from vision.pipeline import TableCamera
    from vision.reader import read_image

    class Blank:    # a camera that films the table without its board: grey frames
        def read(self):
            time.sleep(0.02)
            return np.full((480, 640, 3), 128, np.uint8)

        def close(self):
            pass

    updates: list = []
    worker = CameraWorker(Blank, TableCamera(None).feed, updates.append, fps=20.0, stable_frames=3,
                          read_timeout=0.5, backoff=(0.05, 0.2)).start()
    try:
        lost = wait_for(lambda: next((u for u in updates if u.reading), None), what="a reading")
    finally:
        worker.close()
    every = each_language(lost.status["message"])
    assert every["en"] == lost.status["message"]
    assert every["en"].startswith("the board is not located: no corner markers seen (ids ")
    assert every["de"] == ("der Spielplan ist nicht erkannt: keine Eckmarker gesehen (IDs 0, 1, 2, 3); "
                           "ist der Spielplan im Bild und beleuchtet?")
    for lang, text in every.items():       # one "not located", not "… not located: board not located: …"
        assert len(re.findall(NOT_LOCATED_WORDS, text)) == 1, (lang, text)
    game = Game.new(["red", "blue"], seed=3)
    _, why = action_for(game, reconcile_reading(game, read_image(np.full((480, 640, 3), 128, np.uint8))))
    said = each_language(why)
    assert said["en"].startswith("The camera has not located the board; nothing to confirm (no corner markers seen")
    for lang, text in said.items():
        assert len(re.findall(NOT_LOCATED_WORDS, text)) == 1, (lang, text)


def test_the_camera_cards_last_problem_in_each_language():
    """The referee's device card shows the camera's last problem (vision's words) in the page's language."""
    import numpy as np

    from companion_app.table.devices.devices import Device
    from vision.pipeline import TableCamera

    camera = TableCamera(None)
    camera.feed(np.full((480, 640, 3), 128, np.uint8))
    detail = Device("Camera", camera, why="").status()["detail"]
    assert detail["last_problem"].startswith("board not located: no corner markers seen")
    every = each_language(detail["last_problem"])
    assert every["en"] == detail["last_problem"]
    assert every["es"] == ("tablero no localizado: no se ve ningún marcador de esquina (ids 0, 1, 2, 3); "
                           "¿está el tablero a la vista e iluminado?")
    assert "corner" not in every["fr"] and "corner" not in every["de"]


def test_a_refused_camera_confirm_in_the_requests_language(tmp_path):
    """The one gate's refusal (nothing to confirm, and why) reaches the referee in the page's language."""
    from tests.web_helpers import AUTH, make_app, session_with

    session = session_with(tmp_path)
    app, _ = make_app(tmp_path, session)
    client = app.test_client()
    assert client.post("/api/game", json={"players": ["red", "blue"], "first_player": "red", "seed": 3},
                       headers=AUTH).status_code == 200
    en = client.post("/api/camera/confirm", json={}, headers=AUTH)
    de = client.post("/api/camera/confirm", json={}, headers={**AUTH, "Accept-Language": "de"})
    assert en.status_code == de.status_code == 409
    why = session.camera_view()
    assert en.get_json()["error"] == str(why["why_not"])
    assert de.get_json()["error"] == each_language(why["why_not"])["de"] != why["why_not"]


def test_the_camera_says_a_moves_compass_letters_in_each_language():
    """A move the camera read is said with its unit moves (``(NNW)``) in the reader's compass letters:
    W is O in French and Spanish, E is O in German; I (enter) and X (exit) stay."""
    from companion_app.table.camera.readings import action_for
    from engine.observation import Observation
    from engine.reconcile import reconcile_game

    game = Game.new(["red", "blue"], first_player="red", seed=3)
    while True:      # play on (each pawn the first of its moves) until the player to move can go west
        label = next(x for x in game.unmoved if game.position.pawn(x).colour == game.to_move)
        targets = game.targets(label)
        west = [t for t in targets if t["square"] and "W" in t["moves"] and "E" not in t["moves"]]
        if west:
            break
        game = game.apply({"type": "move", "pawn": label, "moves": targets[-1]["moves"]})
        if game.phase == "monster":
            game = game.apply({"type": "draw"})
    after = game.apply({"type": "move", "pawn": label, "moves": west[0]["moves"]})
    action, words = action_for(game, reconcile_game(game, Observation.of(after.position)))
    moves = action.moves
    assert "W" in moves and f"({moves})" in str(words)
    every = check(words, str(words))
    assert f"({moves.replace('W', 'O')})" in every["fr"] and f"({moves.replace('W', 'O')})" in every["es"]
    assert f"({moves})" in every["de"]
    note = check(after.note, str(after.note))     # the game log's line of the same move
    assert f"({moves.replace('W', 'O')})" in note["fr"] and note["en"] == str(after.note)
