#!/usr/bin/env bash
# Installs the table session on a Raspberry Pi as a service, from this repository's files.
#
#   sudo bash deploy/install.sh [--root DIR] [--dry-run] [--name NAME] [install|update|uninstall [--purge]]
#
#   install    (default) apt packages, the system user `flure`, the app in /opt/flure/venv,
#              /etc/flure/table.toml (never overwritten), the systemd unit, the udev rule for
#              the LED controller (/dev/flure-leds), the mDNS name, then `flure doctor`
#   update     the same from a newer checkout (git pull first), then a restart; a changed
#              /etc/flure/table.toml is kept and the new defaults are written beside it
#   uninstall  removes what install put in place; keeps the game journal (/var/lib/flure) and
#              the configuration (/etc/flure) unless --purge
#   --root DIR install into DIR instead of / (apt, users, hostname and systemctl are skipped)
#   --dry-run  print every action, change nothing
#   --name     the name phones open, NAME.local (default: flure, or the name this machine
#              already has if it is not the stock "raspberrypi")
#
# Every step looks first and acts only when something differs, so a second run changes nothing.
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=""
DRY=0
PURGE=0
NAME=flure
NAME_GIVEN=0
ACTION=install
PYTHON=${PYTHON:-python3}
PORT=8000

usage() {
  sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
  case "$1" in
    --root) [ $# -ge 2 ] || { echo "--root needs a folder" >&2; exit 2; }; ROOT=${2%/}; shift 2 ;;
    --root=*) ROOT=${1#--root=}; ROOT=${ROOT%/}; shift ;;
    --dry-run) DRY=1; shift ;;
    --purge) PURGE=1; shift ;;
    --name) [ $# -ge 2 ] || { echo "--name needs a name" >&2; exit 2; }; NAME=$2; NAME_GIVEN=1; shift 2 ;;
    install|update|uninstall) ACTION=$1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
if [ "$PURGE" = 1 ] && [ "$ACTION" != uninstall ]; then
  echo "--purge goes with uninstall" >&2; exit 2
fi
case "$NAME" in
  *[!a-z0-9-]*|-*|"") echo "--name must be lower-case letters, digits and '-' (it becomes NAME.local)" >&2; exit 2 ;;
esac
if [ -n "$ROOT" ]; then
  ROOT=$(realpath -m -- "$ROOT")
fi

OPT=$ROOT/opt/flure
APP=$OPT/app
VENV=$OPT/venv
ETC=$ROOT/etc/flure
CONFIG=$ETC/table.toml
PINFILE=$ETC/pin
STATE=$ROOT/var/lib/flure
UNIT=$ROOT/etc/systemd/system/flure.service
UDEV=$ROOT/etc/udev/rules.d/99-flure-leds.rules
AVAHI=$ROOT/etc/avahi/services/flure.service
LINK=$ROOT/usr/local/bin/flure
CHANGED=0        # something was (or, with --dry-run, would be) changed

say() { printf '%s\n' "$*"; }
note() { printf 'note: %s\n' "$*"; }
# act DESCRIPTION COMMAND...: print what is done, then do it (not with --dry-run)
act() {
  local what=$1; shift
  CHANGED=1
  if [ "$DRY" = 1 ]; then say "would: $what"; else say "$what"; "$@"; fi
}
on_system() { [ -z "$ROOT" ]; }     # working on this machine itself (not under --root)

# --- what this machine is ------------------------------------------------------------------
is_pi() { grep -qs "Raspberry Pi" /proc/device-tree/model; }
have() { command -v "$1" >/dev/null 2>&1; }

check_start() {
  if on_system && [ "$DRY" = 0 ] && [ "$(id -u)" != 0 ]; then
    echo "Run it as root: sudo bash deploy/install.sh $ACTION (or --dry-run to see what it would do)" >&2
    exit 1
  fi
  if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "The companion needs Python 3.11 or newer ($PYTHON is older or missing); Raspberry Pi OS" \
      "Bookworm (Python 3.11) and Trixie (Python 3.13) have it." >&2
    exit 1
  fi
  if [ -n "$ROOT" ]; then
    say "Installing into $ROOT (--root): apt packages, the user flure, the hostname, systemctl,"
    say "udevadm and flure doctor are skipped there; they act on this machine, not on $ROOT."
  fi
  if ! is_pi; then
    say "This is not a Raspberry Pi: no camera module (python3-picamera2 and the pi extra are left out)"
    say "and no GPIO (python3-lgpio left out, the buttons stay off). Everything else is installed."
  fi
}

# --- files -----------------------------------------------------------------------------------
# put_file SOURCE DEST MODE: DEST gets SOURCE's bytes and MODE, only when it differs
put_file() {
  local src=$1 dest=$2 mode=$3
  if [ -f "$dest" ] && cmp -s "$src" "$dest"; then
    if [ "$(stat -c %a "$dest")" != "$mode" ]; then
      act "chmod $mode $dest" chmod "$mode" "$dest"
    fi
    return 0
  fi
  local verb="write"; [ -e "$dest" ] && verb="update"
  act "$verb $dest (mode $mode)" install -D -m "$mode" "$src" "$dest"
}

# own DEST: the service user's group may read it (only on this machine, where the user exists)
own() {
  local dest=$1
  on_system && [ -e "$dest" ] && id flure >/dev/null 2>&1 || return 0
  if [ "$(stat -c %U:%G "$dest")" != "root:flure" ]; then
    act "chown root:flure $dest" chown root:flure "$dest"
  fi
}

make_dir() {
  local dir=$1 mode=$2
  if [ ! -d "$dir" ]; then
    act "create $dir (mode $mode)" install -d -m "$mode" "$dir"
  elif [ "$(stat -c %a "$dir")" != "$mode" ]; then
    act "chmod $mode $dir" chmod "$mode" "$dir"
  fi
}

remove() {
  local path=$1
  if [ -e "$path" ] || [ -L "$path" ]; then
    act "remove $path" rm -rf -- "$path"
  fi
}

# --- apt and the system user -------------------------------------------------------------------
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# GLib, which OpenCV needs: Debian 13 (Trixie, Raspberry Pi OS Trixie) renamed it libglib2.0-0t64 (the
# 64-bit time_t change), Debian 12 (Bookworm) has libglib2.0-0; the one installed, else the one apt knows.
glib_package() {
  local p
  for p in libglib2.0-0t64 libglib2.0-0; do
    installed "$p" && { printf '%s' "$p"; return 0; }
  done
  if have apt-cache && apt-cache show libglib2.0-0t64 2>/dev/null | grep -q "^Package: libglib2.0-0t64"; then
    printf 'libglib2.0-0t64'
  else
    printf 'libglib2.0-0'
  fi
}

apt_packages() {
  local wanted=(python3-venv python3-pip "$(glib_package)" avahi-daemon espeak-ng)   # espeak-ng: the [speaker]
  if is_pi; then wanted+=(python3-picamera2 python3-libcamera python3-lgpio); fi
  if ! on_system; then
    say "skipped under --root: apt packages (${wanted[*]})"
    return 0
  fi
  if ! have dpkg-query || ! have apt-get; then
    note "no apt-get here: install these yourself: ${wanted[*]}"
    return 0
  fi
  local missing=() p
  for p in "${wanted[@]}"; do
    installed "$p" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  act "apt-get install ${missing[*]}" apt_install "${missing[@]}"
}

apt_install() {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

system_user() {
  if ! on_system; then
    say "skipped under --root: the system user flure (groups video dialout gpio audio)"
    return 0
  fi
  if ! id flure >/dev/null 2>&1; then
    act "create the system user flure" useradd --system --user-group --home-dir /var/lib/flure \
      --no-create-home --shell /usr/sbin/nologin flure
  fi
  local group
  for group in video dialout gpio audio; do
    if ! getent group "$group" >/dev/null; then
      [ "$group" = gpio ] && ! is_pi && { note "no group gpio on this machine (no GPIO)"; continue; }
      note "no group $group on this machine; the service cannot use its devices"
      continue
    fi
    if ! id -nG flure 2>/dev/null | tr ' ' '\n' | grep -qx "$group"; then
      act "add flure to the group $group" usermod -aG "$group" flure
    fi
  done
}

# --- the app -------------------------------------------------------------------------------------
PACKAGES=(engine vision hardware companion_app calibration)

source_hash() {
  (cd "$SRC" && find "${PACKAGES[@]}" pyproject.toml README.md deploy -type f \
     ! -path '*/__pycache__/*' ! -name '*.pyc' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) \
    | sha256sum | cut -d' ' -f1
}

copy_app() {
  local tmp="$APP.new"
  rm -rf -- "$tmp"
  mkdir -p "$tmp"
  (cd "$SRC" && tar --exclude=__pycache__ --exclude='*.pyc' -cf - "${PACKAGES[@]}" pyproject.toml README.md deploy) \
    | tar -xf - -C "$tmp"
  printf '%s\n' "$HASH" > "$tmp/.source-sha256"
  rm -rf -- "$APP"
  mv "$tmp" "$APP"
}

pip_install() {
  local target="$APP"
  if is_pi; then target="${APP}[pi]"; fi
  "$VENV/bin/python" -m pip install --quiet --upgrade "$target"
  # the players' languages: compile the installed gettext catalogs (.po -> .mo)
  "$VENV/bin/python" -m companion_app.i18n compile >/dev/null
  printf '%s\n' "$HASH" > "$VENV/.flure-installed"
}

the_app() {
  HASH=$(source_hash)
  make_dir "$OPT" 755
  if [ "$(cat "$APP/.source-sha256" 2>/dev/null)" != "$HASH" ]; then
    act "copy the app from $SRC to $APP" copy_app
  fi
  if [ ! -x "$VENV/bin/python" ]; then
    act "create the virtual environment $VENV (it sees the system's camera packages)" \
      "$PYTHON" -m venv --system-site-packages "$VENV"
  fi
  if [ "$(cat "$VENV/.flure-installed" 2>/dev/null)" != "$HASH" ]; then
    local extra=""; is_pi && extra=" with the pi extra"
    act "install the app into $VENV$extra (pip)" pip_install
  fi
  if [ "$(readlink "$LINK" 2>/dev/null)" != "/opt/flure/venv/bin/flure" ]; then
    act "link $LINK to the app's flure command" link_flure
  fi
}

link_flure() {
  mkdir -p "$(dirname "$LINK")"
  ln -sfn /opt/flure/venv/bin/flure "$LINK"
}

# --- configuration --------------------------------------------------------------------------------
mdns_name() {
  # the name phones open: --name if given, else flure unless this machine already has a name of its own
  [ "$NAME_GIVEN" = 1 ] && { printf '%s' "$NAME"; return 0; }
  local current
  current=$(cat "$ROOT/etc/hostname" 2>/dev/null || true)
  current=${current%%.*}
  case "$current" in
    ""|raspberrypi|localhost|debian) printf '%s' "$NAME" ;;
    *) printf '%s' "$current" ;;
  esac
}

default_config() {
  # the documented defaults (what `flure config default` prints) with the service's PIN file and
  # .local name; read from the source with the system's Python, so --dry-run can compare it too
  PYTHONPATH="$SRC" "$PYTHON" -m companion_app.config \
    "web.pin_file=/etc/flure/pin" "web.public_host=$(mdns_name).local" "web.port=$PORT" \
    "web.database=/var/lib/flure/session.sqlite3"
}

configuration() {
  make_dir "$ETC" 750
  own "$ETC"
  local new
  new=$(mktemp)
  default_config > "$new"
  if [ ! -f "$CONFIG" ]; then
    put_file "$new" "$CONFIG" 640
  elif ! cmp -s "$new" "$CONFIG"; then
    # never overwritten: the owner's table.toml stays, this version's defaults go beside it
    if [ ! -f "$CONFIG.new" ] || ! cmp -s "$new" "$CONFIG.new"; then
      say "keeping $CONFIG as it is; this version's defaults go to $CONFIG.new (diff the two to see what is new)"
      put_file "$new" "$CONFIG.new" 640
    fi
  fi
  own "$CONFIG"
  rm -f "$new"
  if [ ! -f "$PINFILE" ]; then
    act "make a referee PIN in $PINFILE" make_pin
  fi
  own "$PINFILE"
  make_dir "$STATE" 750
  if on_system && id flure >/dev/null 2>&1 && [ -d "$STATE" ] && [ "$(stat -c %U "$STATE")" != flure ]; then
    act "chown flure:flure $STATE" chown flure:flure "$STATE"
  fi
}

make_pin() {
  local pin
  pin=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
  pin=$(printf '%06d' $((pin % 1000000)))
  (umask 027 && printf '%s\n' "$pin" > "$PINFILE")
}

check_config() {
  [ -x "$VENV/bin/flure" ] && [ "$DRY" = 0 ] || return 0
  if ! "$VENV/bin/flure" config check --config "$CONFIG" >/dev/null 2>&1; then
    say "Your $CONFIG does not suit this version:"
    "$VENV/bin/flure" config check --config "$CONFIG" || true
    say "Compare it with $CONFIG.new and fix it, then: sudo systemctl restart flure"
  fi
}

# --- systemd, udev, mDNS -------------------------------------------------------------------------
# changed PUT_FILE_ARGS...: put_file, and say (exit status) whether it changed anything
changed() {
  local before=$CHANGED
  CHANGED=0
  put_file "$@"
  local now=$CHANGED
  CHANGED=$((before | now))
  [ "$now" = 1 ]
}

system_files() {
  UNIT_CHANGED=0; UDEV_CHANGED=0
  changed "$SRC/deploy/flure.service" "$UNIT" 644 && UNIT_CHANGED=1
  changed "$SRC/deploy/99-flure-leds.rules" "$UDEV" 644 && UDEV_CHANGED=1
  put_file "$SRC/deploy/flure-avahi.service" "$AVAHI" 644
}

hostname_step() {
  local name
  name=$(mdns_name)
  if ! on_system; then
    say "skipped under --root: the hostname (phones will open http://$name.local:$PORT/)"
    return 0
  fi
  local current
  current=$(hostname 2>/dev/null || cat /etc/hostname)
  if [ "$name" != "$current" ]; then
    if have hostnamectl && [ -d /run/systemd/system ]; then
      act "rename this machine from $current to $name (so phones find $name.local)" hostnamectl set-hostname "$name"
    else
      act "rename this machine from $current to $name in /etc/hostname" sh -c "printf '%s\n' '$name' > /etc/hostname"
    fi
    if grep -q "^127\.0\.1\.1" /etc/hosts 2>/dev/null && ! grep -q "^127\.0\.1\.1[[:space:]]\+$name\b" /etc/hosts; then
      act "point 127.0.1.1 in /etc/hosts to $name" sed -i "s/^127\.0\.1\.1.*/127.0.1.1\t$name/" /etc/hosts
    fi
  fi
}

services() {
  local restart=$1
  if ! on_system; then
    say "skipped under --root: systemctl daemon-reload / enable --now flure, udevadm trigger"
    return 0
  fi
  if ! have systemctl || [ ! -d /run/systemd/system ]; then
    note "systemd is not running here: start the session yourself with /opt/flure/venv/bin/flure play --config /etc/flure/table.toml"
    return 0
  fi
  [ "$UNIT_CHANGED" = 1 ] && act "systemctl daemon-reload" systemctl daemon-reload
  if [ "$UDEV_CHANGED" = 1 ] && have udevadm; then
    act "reload the udev rules (the LED controller shows up as /dev/flure-leds)" udev_reload
  fi
  systemctl is-enabled --quiet flure 2>/dev/null || act "systemctl enable flure" systemctl enable --quiet flure
  if ! systemctl is-active --quiet flure 2>/dev/null; then
    act "systemctl start flure" systemctl start flure
  elif [ "$restart" = 1 ]; then
    act "systemctl restart flure" systemctl restart flure
  fi
  if systemctl list-unit-files avahi-daemon.service >/dev/null 2>&1 && ! systemctl is-active --quiet avahi-daemon; then
    act "systemctl enable --now avahi-daemon" systemctl enable --now --quiet avahi-daemon
  fi
}

udev_reload() {
  udevadm control --reload
  udevadm trigger --subsystem-match=tty --action=add
}

doctor() {
  if ! on_system; then
    say "skipped under --root: flure doctor (it checks this machine's camera, LEDs and buttons)"
    return 0
  elif [ "$DRY" = 1 ]; then
    say "would: run flure doctor --config /etc/flure/table.toml"
    return 0
  fi
  if have systemctl && systemctl is-active --quiet flure 2>/dev/null; then
    say "flure doctor: skipped while the session runs (it holds the camera and the LED port); to run it:"
    say "  sudo systemctl stop flure; sudo -u flure flure doctor --config /etc/flure/table.toml; sudo systemctl start flure"
    return 0
  fi
  say ""
  say "flure doctor --config /etc/flure/table.toml (as the user flure):"
  if runuser -u flure -- "$VENV/bin/flure" doctor --config "$CONFIG"; then
    say "Everything checked is ready."
  else
    say "flure doctor found something to fix (above); the session runs anyway and connects to what is missing once it is there."
  fi
}

# --- the actions ------------------------------------------------------------------------------------
do_install() {
  local restart=$1
  check_start
  apt_packages
  system_user
  the_app
  local app_changed=$CHANGED
  configuration
  check_config
  system_files
  hostname_step
  if [ "$app_changed" = 1 ] || [ "${UNIT_CHANGED:-0}" = 1 ]; then restart=1; fi
  # the doctor needs the camera and the LED port, which a running session holds
  if [ "$restart" = 1 ] && on_system && have systemctl && systemctl is-active --quiet flure 2>/dev/null; then
    act "systemctl stop flure (for flure doctor; started again below)" systemctl stop flure
  fi
  if [ "$ACTION" = update ] && [ -f "$STATE/session.sqlite3" ]; then
    # the new version opens the journal at start and adds what it needs; this copy is the way back
    act "keep a copy of the game journal as $STATE/session.sqlite3.before-update" \
      cp -p "$STATE/session.sqlite3" "$STATE/session.sqlite3.before-update"
  fi
  doctor
  services "$restart"
  if [ "$CHANGED" = 0 ]; then
    say "Nothing to change: the companion is installed and up to date."
  fi
  say ""
  say "Phones open http://$(mdns_name).local:$PORT/ ; the referee opens http://$(mdns_name).local:$PORT/referee"
  # the service makes its HTTPS certificate for $(mdns_name).local ([web] public_host) on first start, in
  # /var/lib/flure/tls (companion_app/tls.py); a phone that films the board opens the camera page there
  say "A phone as the camera opens https://$(mdns_name).local:8443/camera (deploy/README.md: the first time)"
  say "with the PIN in /etc/flure/pin (sudo cat /etc/flure/pin). Settings: /etc/flure/table.toml"
}

do_uninstall() {
  check_start
  if on_system && have systemctl && [ -d /run/systemd/system ]; then
    systemctl is-active --quiet flure 2>/dev/null && act "systemctl stop flure" systemctl stop flure
    systemctl is-enabled --quiet flure 2>/dev/null && act "systemctl disable flure" systemctl disable --quiet flure
  elif ! on_system; then
    say "skipped under --root: systemctl stop/disable flure"
  fi
  remove "$UNIT"
  remove "$UDEV"
  remove "$AVAHI"
  if [ "$(readlink "$LINK" 2>/dev/null)" = /opt/flure/venv/bin/flure ]; then remove "$LINK"; fi
  remove "$OPT"
  if [ "$PURGE" = 1 ]; then
    remove "$ETC"
    remove "$STATE"
    if on_system && id flure >/dev/null 2>&1; then
      act "remove the system user flure" userdel flure
    fi
  else
    [ -d "$STATE" ] && say "kept the game journal in $STATE (uninstall --purge removes it)"
    [ -d "$ETC" ] && say "kept the configuration in $ETC (uninstall --purge removes it)"
  fi
  if on_system && have systemctl && [ -d /run/systemd/system ] && [ "$CHANGED" = 1 ]; then
    act "systemctl daemon-reload" systemctl daemon-reload
  fi
  [ "$CHANGED" = 1 ] || say "Nothing to remove: the companion is not installed."
  say "The machine's name and the apt packages are left as they are."
}

case "$ACTION" in
  install) do_install 0 ;;
  update)
    if [ ! -d "$OPT" ]; then
      echo "Not installed yet (no $OPT): run sudo bash deploy/install.sh install" >&2
      exit 1
    fi
    do_install 1 ;;
  uninstall) do_uninstall ;;
esac
