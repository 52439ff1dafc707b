"""The table's own HTTPS certificate: a small certificate authority made once, and a server
certificate it signs for the table's names and addresses (``flure play`` and deploy/install.sh).

Why a CA and not one self-signed certificate: a phone accepts either once through the browser's
warning ("Advanced → Proceed" on Android's Chrome, "Show Details → visit this website" on iOS
Safari), after which the page is a secure context and may use the camera.  With a CA the
certificate can be made again (a new address, a renewal) under the same authority, so a phone
that chose to install the authority (``/flure-ca.crt``) keeps trusting the table without any
warning.  deploy/README.md says which way to take on which phone.

The server certificate follows what current Android and iOS demand of a certificate a user
trusted: the names in subjectAltName (DNS names and IP addresses; the common name is not read),
extendedKeyUsage serverAuth, a 2048-bit RSA key and at most 825 days of validity (Apple).
Everything stays in one folder next to the session's data (never in the repository): ``ca.pem``,
``ca.key``, ``server.pem``, ``server.key``; the keys are readable by their owner only.
"""
from __future__ import annotations

import datetime
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from engine.wording import N_, Text, Worded, os_reason

CA_DAYS = 3650
SERVER_DAYS = 825          # Apple's limit for a TLS server certificate
RENEW_BEFORE_DAYS = 30     # a certificate this close to its end is made again


class TlsError(Worded, RuntimeError):
    """The certificate could not be made or read (names the folder and why), as wording data."""


@dataclass(frozen=True)
class TlsFiles:
    folder: Path
    cert: Path
    key: Path
    ca_cert: Path
    fingerprint: str          # SHA-256 of the CA certificate, hex pairs, for checking it by eye
    created: bool             # the server certificate was made now (new names, renewal, first start)


def default_folder(database: Path) -> Path:
    """Where the certificates live: ``tls/`` beside the session's database (its data directory)."""
    return Path(database).parent / "tls"


def ensure_certificate(folder: Path, names: list[str], addresses: list[str], *,
                       now: datetime.datetime | None = None) -> TlsFiles:
    """The certificate for ``names`` (host names) and ``addresses`` (IPs), made when missing, when it does not
    cover them all or when it ends within RENEW_BEFORE_DAYS; the CA is made once and then kept."""
    try:
        from cryptography.hazmat.primitives import hashes
    except ImportError as exc:
        raise TlsError(Text(N_("HTTPS needs the cryptography package: pip install 'cryptography>=42'"))) from exc
    now = now or datetime.datetime.now(datetime.timezone.utc)
    folder = Path(folder)
    names = sorted({n.lower().rstrip(".") for n in names if n})
    ips = sorted({str(ipaddress.ip_address(a)) for a in addresses if _is_ip(a)})
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        ca_cert, ca_key = _load_or_make_ca(folder, now)
        cert_path, key_path = folder / "server.pem", folder / "server.key"
        created = False
        if not _covers(cert_path, key_path, ca_cert, names, ips, now):
            _make_server(cert_path, key_path, ca_cert, ca_key, names, ips, now)
            created = True
    except OSError as exc:
        raise TlsError(Text(N_("%(path)s: cannot keep the HTTPS certificate there (%(why)s)"), path=str(folder),
                            why=os_reason(exc))) from exc
    except ValueError as exc:   # a damaged authority (a damaged server certificate is made again)
        raise TlsError(Text(N_("%(path)s: a certificate file is damaged (%(why)s); delete the folder and start "
                               "again"), path=str(folder), why=str(exc))) from exc
    digest = ca_cert.fingerprint(hashes.SHA256()).hex().upper()
    return TlsFiles(folder, cert_path, key_path, folder / "ca.pem",
                    ":".join(digest[i:i + 2] for i in range(0, len(digest), 2)), created)


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return False


def _write_private(path: Path, data: bytes) -> None:
    """Written whole or not at all, readable by its owner only."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _new_key():
    from cryptography.hazmat.primitives.asymmetric import rsa
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _key_pem(key) -> bytes:
    from cryptography.hazmat.primitives import serialization
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _key_usage(**allowed):
    """x509 KeyUsage with the ``allowed`` uses on and every other one off."""
    from cryptography import x509
    uses = ("digital_signature", "content_commitment", "key_encipherment", "data_encipherment", "key_agreement",
            "key_cert_sign", "crl_sign", "encipher_only", "decipher_only")
    return x509.KeyUsage(**{use: allowed.get(use, False) for use in uses})


def _load_or_make_ca(folder: Path, now):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import NameOID

    cert_path, key_path = folder / "ca.pem", folder / "ca.key"
    if cert_path.exists() and key_path.exists():
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        if cert.not_valid_after_utc - now > datetime.timedelta(days=RENEW_BEFORE_DAYS):
            return cert, key
    key = _new_key()
    import socket
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"Finstere Flure table {socket.gethostname()}"[:64]),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Finstere Flure Companion")])
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=CA_DAYS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(_key_usage(digital_signature=True, key_cert_sign=True, crl_sign=True), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    _write_private(key_path, _key_pem(key))
    _write_private(cert_path, cert.public_bytes(serialization.Encoding.PEM))
    cert_path.chmod(0o644)
    (folder / "server.pem").unlink(missing_ok=True)     # signed by the old authority
    return cert, key


def _covers(cert_path: Path, key_path: Path, ca_cert, names: list[str], ips: list[str], now) -> bool:
    from cryptography import x509

    if not (cert_path.exists() and key_path.exists()):
        return False
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    except ValueError:       # damaged: the server certificate is made again (the authority is what phones keep)
        return False
    if cert.issuer != ca_cert.subject or cert.not_valid_after_utc - now < datetime.timedelta(days=RENEW_BEFORE_DAYS):
        return False
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return False
    have_names = {n.lower() for n in san.get_values_for_type(x509.DNSName)}
    have_ips = {str(a) for a in san.get_values_for_type(x509.IPAddress)}
    return set(names) <= have_names and set(ips) <= have_ips


def _make_server(cert_path: Path, key_path: Path, ca_cert, ca_key, names: list[str], ips: list[str], now) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = _new_key()
    first = names[0] if names else (ips[0] if ips else "flure")
    san = [x509.DNSName(n) for n in names] + [x509.IPAddress(ipaddress.ip_address(a)) for a in ips]
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, first[:64])]))
            .issuer_name(ca_cert.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=SERVER_DAYS))
            .add_extension(x509.SubjectAlternativeName(san), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(_key_usage(digital_signature=True, key_encipherment=True), critical=True)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    _write_private(key_path, _key_pem(key))
    _write_private(cert_path, cert.public_bytes(serialization.Encoding.PEM) +
                   ca_cert.public_bytes(serialization.Encoding.PEM))   # the chain: server, then the authority
    cert_path.chmod(0o644)


def table_names(public_host: str = "") -> list[str]:
    """The names a phone may open: this machine's, its mDNS ``NAME.local``, ``localhost`` and the public name."""
    import socket
    host = socket.gethostname()
    return [n for n in (public_host, host, f"{host}.local", "localhost") if n]


def table_addresses(*extra: str) -> list[str]:
    """This machine's IP addresses (every interface the name resolves to, the LAN one, loopback)."""
    import socket
    found = {"127.0.0.1", *[a for a in extra if _is_ip(a)]}
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            found.add(info[4][0].split("%")[0])
    except OSError:
        pass
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    """``python -m companion_app.tls FOLDER NAME…``: the Pi installer makes the certificate before the first start."""
    import sys
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m companion_app.tls FOLDER [NAME|ADDRESS ...]")
        return 2
    extra = args[1:]
    try:
        files = ensure_certificate(Path(args[0]), table_names() + [a for a in extra if not _is_ip(a)],
                                   table_addresses(*extra))
    except TlsError as exc:
        print(exc)
        return 1
    print(f"{files.cert} (authority {files.ca_cert}, SHA-256 {files.fingerprint})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
