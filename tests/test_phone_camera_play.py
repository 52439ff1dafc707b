"""``flure play --camera phone`` as a newcomer starts it: it prints the HTTPS address, the camera
page with its QR code and how the phone trusts the certificate the first time; the camera page and the
table's certificate authority are served, and the phone camera is on the referee's Devices card."""
from __future__ import annotations

import json
import re
import signal
import ssl
import urllib.request

from play_process import start_play, stop_play


def test_flure_play_with_a_phone_camera_says_how_to_connect_the_phone(tmp_path):
    proc, out = start_play("--camera", "phone", "--port", "0", "--https-port", "0", "--pin", "2468",
                           "--db", str(tmp_path / "s.sqlite3"), "--no-leds")
    try:
        https = re.search(r"HTTPS:\s+(https://\S+/) \(the same app", out)
        assert https, out
        camera = re.search(r"open (https://\S+/camera) \(scan the code below\)", out)
        assert camera and camera.group(1) == https.group(1) + "camera", out
        assert "tap Advanced, then Proceed (Android)" in out and "flure-ca.crt (SHA-256 " in out
        assert (tmp_path / "tls" / "server.pem").is_file() and (tmp_path / "tls" / "ca.pem").is_file()
        port = re.search(r":(\d+)/$", https.group(1)).group(1)
        context = ssl.create_default_context(cafile=str(tmp_path / "tls" / "ca.pem"))
        context.check_hostname = False          # the LAN address printed is this machine's; 127.0.0.1 is in it too
        with urllib.request.urlopen(f"https://127.0.0.1:{port}/camera", context=context, timeout=20) as r:
            assert r.status == 200 and b'id="camera-main"' in r.read()
        plain = re.search(r"Players: open (http://\S+/) on your phones", out).group(1)
        plain = re.sub(r"//[^/:]+:", "//127.0.0.1:", plain)
        with urllib.request.urlopen(plain + "flure-ca.crt", timeout=20) as r:
            assert r.read() == (tmp_path / "tls" / "ca.pem").read_bytes()
        request = urllib.request.Request(plain + "api/status", headers={"Authorization": "Bearer 2468"})
        with urllib.request.urlopen(request, timeout=20) as r:
            line = json.loads(r.read())["phone_camera"]["detail"]
        assert line["connected"] is False and line["message"].startswith("phone camera: no phone is sending yet")
    finally:
        stop_play(proc, signal.SIGINT)


def test_flure_doctor_with_a_phone_camera_checks_the_https_certificate(tmp_path):
    from companion_app.cli.checks import run_checks
    from companion_app.config import load_table_config

    config = load_table_config(None, {"camera.source": "phone", "web.database": str(tmp_path / "s.sqlite3"),
                                      "web.https_port": 9443})
    found = {f.topic: f for f in run_checks(config, lang="de")}
    assert found["camera"].ok and "https://…:9443/camera" in found["camera"].text, found["camera"]
    assert found["HTTPS"].ok and str(tmp_path / "tls" / "server.pem") in found["HTTPS"].text
    assert found["HTTPS"].text.startswith("Zertifikat ")      # in the doctor's language
    (tmp_path / "tls" / "server.pem").write_text("not a certificate")      # made again
    assert {f.topic: f for f in run_checks(config)}["HTTPS"].ok
    (tmp_path / "tls" / "ca.pem").write_text("not a certificate")          # the authority: the owner decides
    broken = {f.topic: f for f in run_checks(config)}["HTTPS"]
    assert not broken.ok and "damaged" in broken.line(), broken
