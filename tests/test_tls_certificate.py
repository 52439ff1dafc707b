"""The table's own HTTPS certificate (companion_app/tls.py, issue 26): made on first start for the table's
names and addresses, kept and reused, made again when the addresses change (under the same authority),
and trusted by a strict TLS client that trusts the authority."""
from __future__ import annotations

import datetime
import ssl
import stat
import urllib.request

from companion_app.tls import SERVER_DAYS, ensure_certificate


def san_of(path):
    from cryptography import x509

    cert = x509.load_pem_x509_certificate(path.read_bytes())
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return cert, set(san.get_values_for_type(x509.DNSName)), {str(a) for a in san.get_values_for_type(x509.IPAddress)}


def test_made_once_kept_and_renewed_for_new_addresses(tmp_path):
    folder = tmp_path / "tls"
    first = ensure_certificate(folder, ["flure.local", "localhost"], ["192.168.1.23", "127.0.0.1"])
    assert first.created
    cert, names, ips = san_of(first.cert)
    assert names == {"flure.local", "localhost"} and ips == {"192.168.1.23", "127.0.0.1"}
    assert cert.not_valid_after_utc - cert.not_valid_before_utc <= datetime.timedelta(days=SERVER_DAYS + 1)
    assert stat.S_IMODE(first.key.stat().st_mode) == 0o600
    assert stat.S_IMODE((folder / "ca.key").stat().st_mode) == 0o600
    again = ensure_certificate(folder, ["flure.local"], ["127.0.0.1"])
    assert not again.created and again.fingerprint == first.fingerprint
    moved = ensure_certificate(folder, ["flure.local"], ["10.0.0.7"])     # the table joined another network
    assert moved.created and moved.fingerprint == first.fingerprint      # same authority: an installed CA still holds
    assert "10.0.0.7" in san_of(moved.cert)[2]


def test_served_over_https_a_strict_client_trusting_the_authority_connects(tmp_path):
    from companion_app.web.https import HttpsServer
    from web_helpers import make_app

    files = ensure_certificate(tmp_path / "tls", ["localhost"], ["127.0.0.1"])
    app, _ = make_app(tmp_path)
    with HttpsServer(app, "127.0.0.1", 0, files.cert, files.key) as server:
        context = ssl.create_default_context(cafile=str(files.ca_cert))
        for host in ("localhost", "127.0.0.1"):
            with urllib.request.urlopen(f"https://{host}:{server.port}/api/health", context=context, timeout=10) as r:
                assert r.status == 200
        strict = ssl.create_default_context()          # without the table's authority: refused
        try:
            urllib.request.urlopen(f"https://localhost:{server.port}/api/health", context=strict, timeout=10)
            raise AssertionError("a client that does not trust the table's authority connected")
        except urllib.error.URLError as exc:
            assert isinstance(exc.reason, ssl.SSLCertVerificationError)


def test_a_taken_https_port_is_the_systems_own_error_worded_in_the_commands_language(tmp_path):
    """cheroot words a taken port without its errno; the server raises the system's error, which the CLI words."""
    import errno
    import socket

    from companion_app.cli import lang
    from companion_app.web.https import HttpsServer

    files = ensure_certificate(tmp_path / "tls", ["localhost"], ["127.0.0.1"])
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        try:
            HttpsServer(None, "127.0.0.1", port, files.cert, files.key)
            raise AssertionError("a taken port was bound")
        except OSError as exc:
            assert exc.errno == errno.EADDRINUSE
            lang.set_language("fr")
            try:
                said = lang.why(exc)
            finally:
                lang.set_language("en")
            assert "No socket could be created" not in said and "Errno" not in said and said
