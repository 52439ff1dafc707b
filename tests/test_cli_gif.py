"""`flure resolve POS.json --tile N --gif FILE`: the move's animation from the command line."""
import json
import subprocess
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent


def flure(*args):
    return subprocess.run([sys.executable, "-m", "companion_app.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT)


def test_resolve_writes_the_gif(tmp_path):
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps({"monster": {"at": "a5", "facing": "E"}, "pawns": {"A": {"at": "k5"}}}))
    r = flure("resolve", pos, "--tile", "5", "--gif", tmp_path / "move.gif")
    assert r.returncode == 0, r.stderr
    assert "6 frames" in r.stdout
    gif = Image.open(tmp_path / "move.gif")
    assert gif.format == "GIF" and gif.n_frames == 6


def test_resolve_gif_into_a_missing_folder_is_one_plain_sentence(tmp_path):
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps({"monster": {"at": "a5", "facing": "E"}}))
    r = flure("resolve", pos, "--tile", "5", "--gif", tmp_path / "nowhere" / "move.gif")
    assert r.returncode != 0 and "cannot write the GIF" in r.stderr and "Traceback" not in r.stderr
