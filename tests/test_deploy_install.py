"""deploy/install.sh run for real into a temporary root (--root), its files checked by the tools
that will read them on the Pi: shellcheck, systemd-analyze, and udev's rule syntax."""
from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
INSTALL = REPO / "deploy" / "install.sh"
CHIPS = {("10c4", "ea60"), ("1a86", "7523"), ("1a86", "55d4"), ("0403", "6001"), ("0403", "6015")}


def run(root: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(["bash", str(INSTALL), "--root", str(root), *args], capture_output=True, text=True,
                          timeout=600)
    out = proc.stdout + proc.stderr
    if check:
        assert proc.returncode == 0, out
    return out


def snapshot(root: Path) -> dict[str, tuple[int, int, float]]:
    """Every file and folder under root (except the venv's insides) with its mode, size and mtime."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if "/opt/flure/venv" in dirpath:
            continue
        for name in dirnames + filenames:
            p = Path(dirpath, name)
            st = p.lstat()
            out[str(p.relative_to(root))] = (stat.S_IMODE(st.st_mode), st.st_size, st.st_mtime_ns)
    return out


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """One real install (pip included) shared by the tests below; each works on a copy."""
    root = tmp_path_factory.mktemp("root")
    out = run(root)
    return root, out


def copy_of(installed, tmp_path) -> Path:
    root = tmp_path / "root"
    shutil.copytree(installed[0], root, symlinks=True)
    # the venv's scripts name their own folder: point the copy's at itself
    return root


def test_shellcheck_finds_nothing():
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed (apt-get install shellcheck; bootstrap.sh --dev does)")
    proc = subprocess.run(["shellcheck", str(INSTALL), str(REPO / "deploy" / "bootstrap.sh")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


def test_the_unit_passes_systemd_analyze_verify(installed, tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed (Debian's systemd package)")
    root, _ = installed
    unit = (root / "etc/systemd/system/flure.service").read_text()
    for key in ("Type=notify", "WatchdogSec=", "Restart=on-failure", "StateDirectory=flure",
                "SupplementaryGroups=video dialout gpio audio", "ProtectSystem=strict", "ProtectHome=yes",
                "NoNewPrivileges=yes", "PrivateTmp=yes", "User=flure", "RestartPreventExitStatus=2"):
        assert key in unit
    # the unit as installed, with its program looked up in the temporary root instead of /
    local = tmp_path / "flure.service"
    local.write_text(unit.replace("/opt/flure/", f"{root}/opt/flure/"))
    proc = subprocess.run(["systemd-analyze", "verify", str(local)], capture_output=True, text=True)
    assert proc.returncode == 0 and "flure.service" not in proc.stderr, proc.stderr


def udev_rule_problems(text: str) -> list[str]:
    """udev's rule syntax (udev(7)): comma-separated KEY[{attr}] OP "value" pairs per line."""
    match_keys = {"SUBSYSTEM", "SUBSYSTEMS", "KERNEL", "KERNELS", "ACTION", "ATTR", "ATTRS", "ENV", "DRIVERS"}
    assign_keys = {"SYMLINK", "MODE", "GROUP", "OWNER", "ENV", "TAG", "RUN", "NAME"}
    pair = re.compile(r'^\s*([A-Z_]+)(\{[^}]+\})?\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*$')
    problems = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        for part in line.split(", "):
            m = pair.match(part)
            if not m:
                problems.append(f"line {n}: {part!r} is not KEY OP \"value\"")
                continue
            key, _, op, _ = m.groups()
            if op in ("==", "!=") and key not in match_keys:
                problems.append(f"line {n}: {key} cannot be matched")
            if op not in ("==", "!=") and key not in assign_keys:
                problems.append(f"line {n}: {key} cannot be assigned")
    return problems


def test_the_udev_rule_names_the_led_controller_and_keeps_modemmanager_away(installed):
    root, _ = installed
    path = root / "etc/udev/rules.d/99-flure-leds.rules"
    text = path.read_text()
    assert udev_rule_problems(text) == []
    assert udev_rule_problems('SUBSYSTEM="tty", SYMLINK=="x"') != []    # the check can fail
    rules = [line for line in text.splitlines() if line and not line.startswith("#")]
    chips = {tuple(re.findall(r'ATTRS\{id(?:Vendor|Product)\}=="([0-9a-f]{4})"', line)) for line in rules}
    assert chips == CHIPS
    assert all('SYMLINK+="flure-leds"' in r and 'ENV{ID_MM_DEVICE_IGNORE}="1"' in r for r in rules)
    verify = subprocess.run(["udevadm", "verify", "--help"], capture_output=True) if shutil.which("udevadm") else None
    if verify is not None and verify.returncode == 0:       # systemd 254 and later
        proc = subprocess.run(["udevadm", "verify", "--no-style", str(path)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_install_puts_every_file_in_place_with_its_mode(installed):
    root, out = installed
    modes = {"etc/systemd/system/flure.service": 0o644, "etc/udev/rules.d/99-flure-leds.rules": 0o644,
             "etc/avahi/services/flure.service": 0o644, "etc/flure": 0o750, "etc/flure/table.toml": 0o640,
             "etc/flure/pin": 0o640, "var/lib/flure": 0o750, "opt/flure": 0o755}
    for rel, mode in modes.items():
        assert stat.S_IMODE((root / rel).stat().st_mode) == mode, rel
    assert os.readlink(root / "usr/local/bin/flure") == "/opt/flure/venv/bin/flure"
    assert (root / "opt/flure/venv/bin/flure").exists()
    config = tomllib.loads((root / "etc/flure/table.toml").read_text())
    assert config["web"]["pin_file"] == "/etc/flure/pin" and config["web"]["public_host"] == "flure.local"
    assert config["web"]["database"] == "/var/lib/flure/session.sqlite3"     # the unit's StateDirectory
    assert re.fullmatch(r"\d{6}\n", (root / "etc/flure/pin").read_text())
    assert "<type>_http._tcp</type>" in (root / "etc/avahi/services/flure.service").read_text()
    # apt, the user, the hostname and systemctl act on this machine: skipped under --root, and said so
    for what in ("apt packages", "the system user flure", "the hostname", "systemctl"):
        assert f"skipped under --root: {what}" in out
    # the installed program works and reads the installed configuration
    proc = subprocess.run([str(root / "opt/flure/venv/bin/flure"), "config", "check", "--config",
                           str(root / "etc/flure/table.toml")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_second_run_changes_nothing_and_a_dry_run_says_so(installed, tmp_path):
    root = copy_of(installed, tmp_path)
    before = snapshot(root)
    dry = run(root, "--dry-run")
    assert "would:" not in dry and "Nothing to change" in dry
    out = run(root)
    assert "Nothing to change" in out and "write " not in out and "install the app" not in out
    assert snapshot(root) == before


def test_a_dry_run_on_a_fresh_system_prints_every_action_and_changes_nothing(tmp_path):
    root = tmp_path / "fresh"
    out = run(root, "--dry-run")
    assert not root.exists()
    for action in ("create the virtual environment", "install the app into", f"write {root}/etc/flure/table.toml",
                   f"write {root}/etc/systemd/system/flure.service", f"write {root}/etc/udev/rules.d/99-flure-leds.rules",
                   f"write {root}/etc/avahi/services/flure.service", f"make a referee PIN in {root}/etc/flure/pin",
                   f"create {root}/var/lib/flure"):
        assert f"would: {action}" in out, action
    assert "skipped under --root: apt packages" in out and "espeak-ng" in out   # the [speaker]'s voice


def test_update_keeps_a_changed_table_toml_and_writes_the_new_defaults_beside_it(installed, tmp_path):
    root = copy_of(installed, tmp_path)
    table = root / "etc/flure/table.toml"
    mine = table.read_text().replace('mode = "confirm"', 'mode = "auto"')
    table.write_text(mine)
    (root / "var/lib/flure/session.sqlite3").write_bytes(b"the journal")
    out = run(root, "update")
    assert table.read_text() == mine
    new = root / "etc/flure/table.toml.new"
    assert new.exists() and tomllib.loads(new.read_text())["table"]["mode"] == "confirm"
    assert "keeping" in out and str(table) in out
    assert (root / "var/lib/flure/session.sqlite3").read_bytes() == b"the journal"
    assert (root / "var/lib/flure/session.sqlite3.before-update").read_bytes() == b"the journal"
    again = run(root)
    assert "Nothing to change" in again and table.read_text() == mine


def test_uninstall_removes_what_it_installed_and_keeps_the_journal_and_configuration(installed, tmp_path):
    root = copy_of(installed, tmp_path)
    (root / "var/lib/flure/session.sqlite3").write_bytes(b"the journal")
    out = run(root, "uninstall")
    for rel in ("opt/flure", "etc/systemd/system/flure.service", "etc/udev/rules.d/99-flure-leds.rules",
                "etc/avahi/services/flure.service", "usr/local/bin/flure"):
        assert not (root / rel).exists() and not (root / rel).is_symlink(), rel
    assert (root / "var/lib/flure/session.sqlite3").read_bytes() == b"the journal"
    assert (root / "etc/flure/table.toml").exists() and "kept the game journal" in out
    assert "Nothing to remove" in run(root, "uninstall")
    run(root, "uninstall", "--purge")
    assert not (root / "var/lib/flure").exists() and not (root / "etc/flure").exists()


def test_update_needs_an_installation_and_bad_options_are_refused(tmp_path):
    out = run(tmp_path / "empty", "update", check=False)
    assert "Not installed yet" in out
    proc = subprocess.run(["bash", str(INSTALL), "--purge"], capture_output=True, text=True)
    assert proc.returncode == 2 and "--purge goes with uninstall" in proc.stderr


def test_a_dry_run_on_this_machine_itself_says_what_it_would_do_and_changes_nothing():
    """Without --root the installer looks at the real system (apt, the user, the hostname,
    systemd) read-only; on a machine that is not a Pi it says what it cannot do."""
    existed = {p: Path(p).exists() for p in ("/opt/flure", "/etc/flure", "/etc/systemd/system/flure.service")}
    proc = subprocess.run(["bash", str(INSTALL), "--dry-run"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert {p: Path(p).exists() for p in existed} == existed
    assert "would: " in proc.stdout or "Nothing to change" in proc.stdout
    assert "skipped under --root" not in proc.stdout
    if not Path("/proc/device-tree/model").exists():
        assert "This is not a Raspberry Pi: no camera module" in proc.stdout and "no GPIO" in proc.stdout


def test_the_local_name_is_flure_unless_the_machine_has_its_own_or_one_is_given(tmp_path):
    root = tmp_path / "named"
    assert "phones will open http://flure.local:8000/" in run(root, "--dry-run")
    (root / "etc").mkdir(parents=True)
    (root / "etc/hostname").write_text("raspberrypi\n")          # the stock name: renamed
    assert "phones will open http://flure.local:8000/" in run(root, "--dry-run")
    (root / "etc/hostname").write_text("tisch\n")                # named by its owner: kept
    assert "phones will open http://tisch.local:8000/" in run(root, "--dry-run")
    assert "phones will open http://tafel.local:8000/" in run(root, "--dry-run", "--name", "tafel")
    proc = subprocess.run(["bash", str(INSTALL), "--root", str(root), "--name", "Bad_Name"], capture_output=True,
                          text=True)
    assert proc.returncode == 2 and "--name must be lower-case" in proc.stderr


# dpkg-query and apt-cache as Debian 12 (Bookworm) and 13 (Trixie) answer them: FAKE_INSTALLED is what is
# installed, FAKE_KNOWN what apt's lists have
FAKE_DPKG_QUERY = """#!/bin/sh
for pkg; do :; done
case " $FAKE_INSTALLED " in
  *" $pkg "*) printf 'install ok installed' ;;
  *) echo "dpkg-query: no packages found matching $pkg" >&2; exit 1 ;;
esac
"""
FAKE_APT_CACHE = """#!/bin/sh
[ "$1" = show ] || exit 100
case " $FAKE_KNOWN " in
  *" $2 "*) printf 'Package: %s\\nVersion: 1\\n' "$2" ;;
  *) echo "E: No packages found" >&2; exit 100 ;;
esac
"""
BOOKWORM = "python3-venv python3-pip libglib2.0-0 avahi-daemon espeak-ng"
TRIXIE = "python3-venv python3-pip libglib2.0-0t64 avahi-daemon espeak-ng"


@pytest.mark.parametrize("installed_now, known, apt_line", [
    ("", BOOKWORM, f"would: apt-get install {BOOKWORM}"),
    ("", TRIXIE, f"would: apt-get install {TRIXIE}"),      # Trixie has no real libglib2.0-0 (64-bit time_t)
    ("libglib2.0-0t64 espeak-ng", TRIXIE, "would: apt-get install python3-venv python3-pip avahi-daemon\n"),
    (TRIXIE, TRIXIE, None),                                # a second run on Trixie installs nothing
    (BOOKWORM, BOOKWORM, None),
], ids=["bookworm", "trixie", "trixie-some-installed", "trixie-all-installed", "bookworm-all-installed"])
def test_the_apt_packages_are_named_as_bookworm_and_trixie_call_them(tmp_path, installed_now, known, apt_line):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, script in (("dpkg-query", FAKE_DPKG_QUERY), ("apt-cache", FAKE_APT_CACHE)):
        (bin_dir / name).write_text(script)
        (bin_dir / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "FAKE_INSTALLED": installed_now, "FAKE_KNOWN": known}
    proc = subprocess.run(["bash", str(INSTALL), "--dry-run"], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    if apt_line is None:
        assert "apt-get install" not in proc.stdout
    else:
        assert apt_line in proc.stdout + "\n"
