"""The Setup page's teaching of the box without stickers (issue 27, NOSTICKERS.md): the layout's steps one
at a time on the simulated table (its players lay each step out, the LEDs light the step's squares), each
photo from the table's own camera checked at once (a wrong one refused with the reason, the step taken
again, nothing saved half-taught), the taught pieces.json saved beside the table's configuration, and
what was learned shown with the faces that look too alike under this light.

The camera is the real camera worker filming the simulated table without stickers (``SimulatedRig``,
look seed 0, a box this version teaches whole); the server is the real waitress one; the browser is
headless Chromium.
"""
from __future__ import annotations

import dataclasses
import time
from contextlib import contextmanager

import numpy as np
import pytest

from browser_helpers import needs_chromium, referee_login
from companion_app.config import load_table_config
from companion_app.table.devices.devices import open_camera, open_leds
from companion_app.table.session.session import TableSession
from companion_app.table.session.store import Store
from companion_app.table.setup.teaching import TILE_WARNINGS, step_squares
from engine.wording import Text
from test_setup_page import until
from test_web_a11y import axe_violations
from vision.nostickers import Pieces
from vision.nostickers import looks as L
from vision.nostickers.teach import ALIKE, Face, alike
from vision.nostickers.tiles import TileLooks, pairs_alike, pairs_apart, pairs_distance
from vision.teaching_layout import load_layout
from web_helpers import AUTH, OUTPUT, each_language, make_app

LOOK_SEED = 0       # a simulated box this version teaches whole (look seed 3 is refused at step 3 today)


@contextmanager
def taught_table(tmp_path):
    """A session whose real camera worker films the simulated table without stickers; a table.toml beside
    the journal; the real LED grid on its built-in emulator.  Yields (app, session, rig, the grid)."""
    from companion_app.table.simulated.demo import SimulatedRig

    config_path = tmp_path / "table.toml"
    config_path.write_text(f'[web]\ndatabase = "{tmp_path / "s.sqlite3"}"\n', encoding="utf-8")
    session = TableSession(Store(tmp_path / "s.sqlite3"))
    session.new_game(["red", "blue"], seed=28)
    rig = SimulatedRig(session, seed=28, speed=20, stickers=False, look_seed=LOOK_SEED)   # players not started
    session.simulated = rig
    session.camera = open_camera("simulated", None, None, 2, on_update=session.on_camera, fps=8,
                                 open_frames=rig.open_source)
    session.leds = open_leds(None)
    leds = session.leds.obj
    app, _ = make_app(tmp_path, session, table_config=load_table_config(config_path))
    try:
        yield app, session, rig, leds
    finally:
        rig.close()
        session.close()


@pytest.fixture(scope="module")
def box():
    """The simulated box of look ``LOOK_SEED`` taught from the teaching layout's photos (pools and teleporters
    with it), as a family's teaching would save it."""
    from types import SimpleNamespace

    from companion_app.table.simulated.demo import SimulatedRig
    from engine.game import Game

    game = Game.new(["red", "blue"], seed=28)
    return SimulatedRig(SimpleNamespace(game=game), seed=28, stickers=False, look_seed=LOOK_SEED).teach()


def alike_pairs(pieces: Pieces) -> Pieces:
    """``pieces`` with teleporter pair 2 taught with pair 1's look: the two pairs alike under this light."""
    taught = pieces.placed.teleporters
    one = next(s for p, _a, s in taught if p == 1)
    return dataclasses.replace(pieces, placed=TileLooks(pieces.placed.palette,
                                                        [(p, a, one if p == 2 else s) for p, a, s in taught]))


@contextmanager
def setup_app(folder, pieces: Pieces | None):
    """An app whose table configuration lies in ``folder``, beside ``pieces`` saved as its pieces.json."""
    folder.mkdir(parents=True, exist_ok=True)
    config_path = folder / "table.toml"
    config_path.write_text(f'[web]\ndatabase = "{folder / "s.sqlite3"}"\n', encoding="utf-8")
    if pieces is not None:
        pieces.save(folder / "pieces.json")
    session = TableSession(Store(folder / "s.sqlite3"))
    app, _ = make_app(folder, session, table_config=load_table_config(config_path))
    try:
        yield app
    finally:
        session.close()


def lit(grid, expected: list[str]) -> bool:
    """The LED grid shows ``expected`` lit (a follow-up show lighting those squares and no other; none: the
    game's idle show), waiting a little for its next frame."""
    def shown():
        frame = grid.sent_frame() or {}
        if frame.get("showing") != "follow":
            return [] if frame.get("showing") == "idle" else None
        return sorted(k for k, v in frame["squares"].items() if v != "000000")
    return until(lambda: shown() == sorted(expected), 5, f"the LEDs lighting {expected}")


# -- the look-alike warnings: a pure computation over the taught samples ------------------------------

def _face(key, polar, noise):
    return Face(key, polar.astype(np.float32), noise, 2, "a1")


def test_faces_closer_than_their_noise_are_named_and_no_others():
    rng = np.random.default_rng(4)
    base = rng.uniform(60, 200, (L.ANGLES, L.RINGS, 3))
    other = rng.uniform(60, 200, (L.ANGLES, L.RINGS, 3))
    near = base + 1.0                                   # the same look, a little lighter
    gap = L.distance(base, near)
    faces = [_face("pawn:red:6/1:white", base, 2 * gap), _face("pawn:red:4/3:white", near, 0.5 * gap),
             _face("pawn:blue:6/1:white", other, 2 * gap), _face("pawn:red:6/1:white", near, 2 * gap)]
    pairs = alike(faces)
    assert [p["faces"] for p in pairs] == [["pawn:red:4/3:white", "pawn:red:6/1:white"]]
    assert pairs[0]["distance"] < gap / 4            # its nearest samples: the same picture
    # the noisier face decides: both quiet, the pair is told apart
    quiet = [_face("pawn:red:6/1:white", base, 0.5 * gap), _face("pawn:red:4/3:white", near, 0.5 * gap)]
    assert alike(quiet) == []
    assert ALIKE * 2 * gap > gap > ALIKE * 0.5 * gap


def test_a_taught_face_is_drawn_back_as_a_disc_of_its_colours():
    import base64

    import cv2

    from companion_app.table.setup.teaching import PICTURE_PX, picture

    red, blue = (cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2LAB)[0, 0].astype(np.float32)
                 for bgr in ((30, 30, 200), (200, 60, 20)))
    polar = np.empty((L.ANGLES, L.RINGS, 3), np.float32)
    polar[:, : L.RINGS // 2] = red           # the inner rings red, the outer ones blue
    polar[:, L.RINGS // 2:] = blue
    url = picture(polar)
    assert url.startswith("data:image/png;base64,")
    img = cv2.imdecode(np.frombuffer(base64.b64decode(url.split(",", 1)[1]), np.uint8), cv2.IMREAD_UNCHANGED)
    assert img.shape == (PICTURE_PX, PICTURE_PX, 4)
    c = PICTURE_PX // 2
    assert np.abs(img[c, c, :3].astype(int) - (30, 30, 200)).max() < 12            # the middle: red
    assert np.abs(img[c, c + PICTURE_PX * 2 // 5, :3].astype(int) - (200, 60, 20)).max() < 12   # the rim: blue
    assert img[0, 0, 3] == 0 and img[c, c, 3] == 255                                  # outside the disc: clear


def test_look_alike_pairs_join_into_groups():
    from companion_app.table.setup.teaching import alike_groups

    near = {"a": {"b"}, "b": {"a", "c"}, "c": {"b"}, "x": {"y"}, "y": {"x"}}
    assert alike_groups(near) == [["a", "b", "c"], ["x", "y"]]
    assert alike_groups({}) == []


# -- the API ---------------------------------------------------------------------------------------------

def test_teaching_through_the_api_refuses_a_wrong_photo_then_saves_what_it_learned(tmp_path):
    layout = load_layout()
    with taught_table(tmp_path) as (app, session, rig, leds):
        client = app.test_client()
        start = rig.table.position()
        status = client.get("/api/setup/teaching", headers=AUTH).get_json()
        assert status["active"] is False and status["learned"] == {"taught": False, "file": str(tmp_path / "pieces.json")}
        refused = client.post("/api/setup/teaching/photo", headers=AUTH, json={})
        assert refused.status_code == 409 and "Start teaching" in refused.get_json()["error"]
        assert client.post("/api/setup/teaching/start", headers=AUTH, json={"x": 1}).status_code == 400
        assert client.get("/api/setup/teaching").status_code == 401                    # referee only

        status = client.post("/api/setup/teaching/start", headers=AUTH, json={}).get_json()
        assert status["active"] and status["steps"] == len(layout) and status["step"]["number"] == 1
        assert status["step"]["squares"] == [] and status["step"]["say"].startswith("Clear the board")
        assert rig.players.paused and [p for p in rig.table.position().pawns if p.square is not None] == []
        status = client.post("/api/setup/teaching/photo", headers=AUTH, json={"step": 1}).get_json()
        assert status["refused"] is None and status["done"] == 1 and status["step"]["number"] == 2
        again = client.post("/api/setup/teaching/photo", headers=AUTH, json={"step": 1})    # a second tap
        assert again.status_code == 409 and "step 1" in again.get_json()["error"] and "step 2" in again.get_json()["error"]
        assert client.post("/api/setup/teaching/photo", headers=AUTH, json={"step": "2"}).status_code == 400
        squares = step_squares(layout.steps[1])
        assert status["step"]["squares"] == squares and lit(leds, squares) and len(squares) > 40
        session.publish_state()                  # the session has news meanwhile (a camera view, a phone):
        time.sleep(0.5)                          # its LED view waits for the teaching to end
        assert lit(leds, squares)

        # A pawn the step lists is not on its square: refused with the reason, the step stays to take again.
        pawn = next(iter(layout.steps[1].setup["pawns"].values()))
        rig.table.move_piece(pawn["at"], None)
        status = client.post("/api/setup/teaching/photo", headers=AUTH, json={}).get_json()
        assert status["done"] == 1 and status["step"]["number"] == 2
        assert "step 2" in status["refused"] and pawn["at"] in status["refused"], status["refused"]
        french = app.test_client().get("/api/setup/teaching?lang=fr", headers=AUTH).get_json()   # its own cookie
        assert french["refused"] != status["refused"] and pawn["at"] in french["refused"]
        assert not (tmp_path / "pieces.json").exists()
        rig.table.arrange(layout.steps[1].pieces())          # the family puts it back

        checks = []
        for n in range(2, len(layout) + 1):
            status = client.post("/api/setup/teaching/photo", headers=AUTH, json={}).get_json()
            checks.append(status["checked_s"])
            assert status["refused"] is None, status["refused"]
            assert status["done"] == n
            if n < len(layout):
                assert status["step"]["number"] == n + 1 and lit(leds, step_squares(layout.steps[n]))
        assert status["active"] is False and status["saved"] == str(tmp_path / "pieces.json")
        assert max(checks) < 15, checks          # every photo checked at once (about 1 s each on an idle machine)
        pieces = Pieces.load(tmp_path / "pieces.json")
        assert len({f.key for f in pieces.faces}) >= 50 and pieces.tiles
        # the table is the game's again, its players let go, the LEDs back to the game
        assert rig.table.differences(session.game.position) == [] and rig.table.view().tile is None
        assert rig.players.paused is False and lit(leds, [])
        assert start.to_setup() == rig.table.position().to_setup()

        learned = status["learned"]
        keys = {f.key for f in pieces.faces} | {f.key for f in pieces.tiles}
        assert learned["taught"] and len(learned["faces"]) == len(keys)
        assert all(f["picture"].startswith("data:image/png;base64,") for f in learned["faces"])
        expected = alike(pieces.faces)
        assert [w["keys"] for w in learned["warnings"]] == [w["faces"] for w in expected]
        named = {f["face"]: f for f in learned["faces"]}
        for w in expected:
            a, b = w["faces"]
            assert named[a]["alike"] and named[b]["alike"]
            assert sum({a, b} <= set(g["keys"]) for g in learned["groups"]) == 1
        # the Setup page's own teaching learned the advanced setup's tiles too: the pools' colours, the 4 teleporters
        assert len(learned["placed"]["pools"]) == len(pieces.placed.palette) > 0
        assert sorted((t["pair"], t["arrow"]) for t in learned["placed"]["teleporters"]) == [
            (1, "E"), (1, "S"), (2, "N"), (2, "W")]
        fr = app.test_client().get("/api/setup/teaching?lang=fr", headers=AUTH).get_json()["learned"]
        assert [f["face"] for f in fr["faces"]] == [f["face"] for f in learned["faces"]]
        assert fr["faces"][0]["name"] != learned["faces"][0]["name"]


def test_the_pools_and_teleporters_taught_are_shown_with_their_warnings_by_code(tmp_path, box):
    import cv2

    def placed(pieces, name, lang="en"):
        with setup_app(tmp_path / name, pieces) as app:
            r = app.test_client().get(f"/api/setup/teaching?lang={lang}", headers=AUTH)
            assert r.status_code == 200
            return r.get_json()["learned"]["placed"]

    # as taught: the pools' colours, each teleporter with its pair, arrow and taught look
    shown = placed(box, "taught")
    palette = box.placed.palette
    assert palette is not None and len(shown["pools"]) == len(palette)
    rgb = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in shown["pools"]], np.uint8)
    lab = cv2.cvtColor(rgb[None], cv2.COLOR_RGB2LAB)[0].astype(np.float32)
    gaps = np.sqrt(((lab[:, None] - palette[None]) ** 2).sum(axis=2))
    assert gaps.min(axis=1).max() < 4 and gaps.min(axis=0).max() < 4        # each swatch one of the taught colours
    assert list(lab[:, 0]) == sorted(lab[:, 0], reverse=True)                 # the lightest first
    taught = {(p, "NESW"[a]) for p, a, _s in box.placed.teleporters}
    assert {(t["pair"], t["arrow"]) for t in shown["teleporters"]} == taught == {(1, "E"), (1, "S"), (2, "N"), (2, "W")}
    assert all(t["picture"].startswith("data:image/png;base64,") for t in shown["teleporters"])
    assert shown["teleporters"][0]["name"] == "teleporter 1 arrow E"
    assert shown["pairs_distance"] == pytest.approx(pairs_distance(box.placed.teleporters), abs=0.01)
    assert [w["code"] for w in shown["warnings"]] == (["teleporters-alike"] if pairs_alike(box.placed.teleporters)
                                                      else [])
    french = placed(box, "taught-fr", "fr")
    assert french["teleporters"][0]["name"] != shown["teleporters"][0]["name"] and "1" in french["teleporters"][0]["name"]

    # the two pairs taught alike: warned by its code, with the distance and the distance needed
    shown = placed(alike_pairs(box), "alike")
    assert [w["code"] for w in shown["warnings"]] == ["teleporters-alike"]
    warning = shown["warnings"][0]
    assert warning["distance"] < 1 and warning["needed"] == pytest.approx(pairs_apart()) and shown["pairs_distance"] < 1
    assert "too alike" in warning["text"]
    assert placed(alike_pairs(box), "alike-de", "de")["warnings"][0]["text"] != warning["text"]

    # taught without its tiles (a file taught before they were): nothing shown, both said not taught
    shown = placed(dataclasses.replace(box, placed=None), "none")
    assert shown["pools"] == [] and shown["teleporters"] == [] and shown["pairs_distance"] is None
    assert [w["code"] for w in shown["warnings"]] == ["pools-not-taught", "teleporters-not-taught"]
    # one pair only, the pools not seen: the pair missing is named
    one_pair = TileLooks(None, [t for t in box.placed.teleporters if t[0] == 1])
    shown = placed(dataclasses.replace(box, placed=one_pair), "one-pair", "es")
    assert [(w["code"], w.get("pair")) for w in shown["warnings"]] == [("pools-not-taught", None), ("pair-not-taught", 2)]
    assert [t["pair"] for t in shown["teleporters"]] == [1, 1] and " 2 " in shown["warnings"][1]["text"]
    for code, template in TILE_WARNINGS.items():       # each sentence said in each language
        assert len(set(each_language(Text(template, pair=2)).values())) == 4, code


def test_a_bad_pieces_file_is_said_not_a_500(tmp_path):
    with taught_table(tmp_path) as (app, _session, _rig, _leds):
        (tmp_path / "pieces.json").write_text("{not json", encoding="utf-8")
        r = app.test_client().get("/api/setup/teaching", headers=AUTH)
        assert r.status_code == 200
        learned = r.get_json()["learned"]
        assert learned["taught"] is False and "pieces.json" in learned["error"] and "flure teach" in learned["error"]
        cancel = app.test_client().post("/api/setup/teaching/cancel", headers=AUTH, json={}).get_json()
        assert cancel["active"] is False


# -- the Setup page in headless Chromium ----------------------------------------------------------------

def setup_page(browser, server, lang: str):
    """(page, its script errors): the Setup page in ``lang``, the referee logged in (CSP bypassed for axe)."""
    page = browser.new_context(viewport={"width": 1280, "height": 1000}, bypass_csp=True).new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    referee_login(page, server.url, "setup")
    page.goto(f"{server.url}setup?lang={lang}")
    return page, errors


@needs_chromium
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_setup_page_teaches_the_simulated_box_and_shows_what_it_learned(browser, tmp_path, lang):
    from companion_app.web.server import Server

    layout = load_layout()
    with taught_table(tmp_path) as (app, session, rig, leds), Server(app) as server:
        page, errors = setup_page(browser, server, lang)
        page.wait_for_selector("#teach-start:visible")
        OUTPUT.mkdir(exist_ok=True)
        assert page.is_hidden("#teach-photo")
        page.focus("#teach-start")                        # keyboard only
        page.keyboard.press("Enter")
        page.wait_for_selector("#teach-photo:visible")
        assert page.get_attribute("#teach-card", "data-done") == "0"
        said = page.text_content("#teach-say")
        assert said == ("Clear the board and the card zone, then take a photo of the empty board." if lang == "en"
                        else "Videz le plateau et la zone des tuiles, puis prenez une photo du plateau vide.")
        until(lambda: page.evaluate("document.activeElement.id") == "teach-photo", 5, "the focus on Take the photo")
        page.keyboard.press("Enter")
        until(lambda: page.get_attribute("#teach-card", "data-done") == "1", 30, "step 1's photo")
        assert lit(leds, step_squares(layout.steps[1]))
        page.wait_for_selector("#teach-board[data-step='2'] svg.board")     # the step drawn: what goes where
        drawn = page.eval_on_selector_all("#teach-board .piece[data-square]", "els => els.map(e => e.dataset.square)")
        setup = layout.steps[1].setup
        assert sorted(drawn) == sorted([p["at"] for p in setup["pawns"].values()] + list(setup["stones"])), drawn
        page.locator("#teach-card").screenshot(path=str(OUTPUT / f"setup-teaching-step-{lang}.png"))
        assert axe_violations(page) == []               # a step under way, its board drawn
        assert page.text_content("#teach-squares").count(",") == len(step_squares(layout.steps[1])) - 1

        # A pawn missing from its lit square: the photo is refused, said why, and taken again.
        pawn = next(iter(layout.steps[1].setup["pawns"].values()))
        rig.table.move_piece(pawn["at"], None)
        page.click("#teach-photo")
        until(lambda: pawn["at"] in page.text_content("#teach-message"), 30, "the refusal")
        assert page.get_attribute("#teach-card", "data-done") == "1" and not (tmp_path / "pieces.json").exists()
        if lang == "fr":
            assert "Photo refusée" in page.text_content("#teach-message")
        rig.table.arrange(layout.steps[1].pieces())
        for n in range(2, len(layout) + 1):
            page.click("#teach-photo")
            until(lambda: page.get_attribute("#teach-card", "data-done") in (str(n), "0") and
                  page.is_enabled("#teach-photo"), 60, f"step {n}'s photo")
            assert "fix" not in (page.get_attribute("#teach-message", "class") or ""), page.text_content("#teach-message")
        page.wait_for_selector("#teach-start:visible")
        assert str(tmp_path / "pieces.json") in page.text_content("#teach-message")

        # What was learned: each face with its picture, and the look-alike warnings computed from the file.
        pieces = Pieces.load(tmp_path / "pieces.json")
        keys = {f.key for f in pieces.faces} | {f.key for f in pieces.tiles}
        page.wait_for_selector("#learned-faces li")
        shown = page.eval_on_selector_all("#learned-faces li", "els => els.map(e => e.dataset.face)")
        assert sorted(shown) == sorted(keys)
        assert page.eval_on_selector_all("#learned-faces img", "els => els.every(i => i.complete && i.naturalWidth > 0)")
        pairs = alike(pieces.faces)
        marked = set(page.eval_on_selector_all("#learned-faces li.alike", "els => els.map(e => e.dataset.face)"))
        assert marked == {k for p in pairs for k in p["faces"]}
        groups = [set(g.split()) for g in page.eval_on_selector_all("#learned-warnings li.fix",
                                                                     "els => els.map(e => e.dataset.faces)")]
        assert sorted(k for g in groups for k in g) == sorted(marked)        # each warned face in one group
        for a, b in (p["faces"] for p in pairs):                              # each pair within its group
            assert any({a, b} <= g for g in groups)
        if pairs:
            assert ("look too alike" if lang == "en" else "se ressemblent trop") in page.text_content("#learned-alike")
            assert f" {len(groups)} " in f" {page.text_content('#learned-alike')}"
        # beside the faces: the pools' colours and each taught teleporter, warned as the file says
        expect_tiles(page, pieces)
        page.click("#learned-pairs summary")
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / f"setup-teaching-{lang}.png"), full_page=True)
        assert errors == []
        assert axe_violations(page) == []               # the card taught, its pairs open: as clean as the others


def expect_tiles(page, pieces: Pieces) -> None:
    """The Setup page shows ``pieces``' pools (a swatch per taught colour) and teleporters (pair, arrow, a loaded
    picture), and the warnings ``describe_placed`` gives them by code, the teleporters marked when alike."""
    from companion_app.table.setup.teaching import describe_placed

    placed = describe_placed(pieces.placed)
    page.wait_for_function("document.querySelectorAll('#learned-tiles li').length == %d"
                           % (bool(placed["pools"]) + len(placed["teleporters"])))
    colours = page.eval_on_selector_all("#learned-tiles li[data-face=pool] .swatch", "els => els.map(e => e.dataset.colour)")
    assert colours == placed["pools"]
    if colours:      # the browser paints each swatch its colour
        painted = page.eval_on_selector_all("#learned-tiles .swatch",
                                            "els => els.map(e => getComputedStyle(e).backgroundColor)")
        assert painted == [f"rgb({int(c[1:3], 16)}, {int(c[3:5], 16)}, {int(c[5:], 16)})" for c in colours]
    shown = page.eval_on_selector_all("#learned-tiles li[data-face=teleporter]",
                                      "els => els.map(e => [Number(e.dataset.pair), e.dataset.arrow])")
    taught = pieces.placed.teleporters if pieces.placed is not None else []
    assert sorted(map(tuple, shown)) == sorted((p, "NESW"[a]) for p, a, _s in taught)
    assert page.eval_on_selector_all("#learned-tiles img", "els => els.every(i => i.complete && i.naturalWidth > 0)")
    codes = page.eval_on_selector_all("#learned-tile-warnings li.fix", "els => els.map(e => e.dataset.code)")
    assert codes == [w["code"] for w in placed["warnings"]]
    alike = page.eval_on_selector_all("#learned-tiles li.alike", "els => els.length")
    assert alike == (len(shown) if "teleporters-alike" in codes else 0)


@needs_chromium
@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_setup_page_warns_of_teleporter_pairs_alike_and_pools_not_taught(browser, tmp_path, box, lang):
    from companion_app.web.server import Server

    pieces = dataclasses.replace(alike_pairs(box), placed=TileLooks(None, alike_pairs(box).placed.teleporters))
    with setup_app(tmp_path, pieces) as app, Server(app) as server:
        page, errors = setup_page(browser, server, lang)
        page.wait_for_selector("#learned-faces li")
        expect_tiles(page, pieces)
        said = page.text_content("#learned-tile-warnings")
        assert ("too alike" in said) == (lang == "en") and ("zu ähnlich" in said) == (lang == "de"), said
        assert ("No pool was taught" in said) == (lang == "en"), said
        page.locator("#teach-card").screenshot(path=str(OUTPUT / f"setup-teaching-tiles-{lang}.png"))
        assert errors == []
        assert axe_violations(page) == []
