"""The table configuration: one TOML file for the camera, the table session, the web app and
the LED grid and buttons.

Why one file: a table owner sets up once (camera, calibration, LED port, PIN) and the
service (``/etc/flure/table.toml``), ``flure play --config``, ``flure doctor`` and
``flure config show`` must all read the same values.  The documented defaults are
``default_table.toml`` beside this module for ``[camera]``, ``[table]`` and ``[web]``;
the hardware sections keep theirs in ``hardware/default.toml`` and are validated by
``hardware.config`` (never re-checked here).  ``flure config default`` prints both as one
file.  A user's file only holds what differs.

Every error is one line naming the file and the key (``table.toml: [web] port = 70000 must
be between 1 and 65535``); nothing here raises anything but ``TableConfigError``.
"""
from __future__ import annotations

import copy
import dataclasses
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from engine.jsontext import MAX_DEPTH, data_depth
from engine.wording import N_, Term, Text, Worded, os_reason
from hardware.config import DEFAULT_PATH as HARDWARE_DEFAULT_PATH
from hardware.config import HardwareConfig, HardwareConfigError, check_number, not_a_section, not_a_switch, only_keys
from hardware.config import load_config as load_hardware_config

DEFAULT_PATH = Path(__file__).with_name("default_table.toml")
HARDWARE_SECTIONS = ("layout", "serial", "power", "animation", "buttons")
TABLE_SECTIONS = ("camera", "table", "web", "speaker")
MODES = ("auto", "confirm")
CAMERA_KEYS = {"source", "resolution", "fps", "calibration", "marker_scheme", "pieces", "exposure", "reader"}
EXPOSURE_KEYS = {"exposure_us", "analogue_gain", "colour_gains"}
WEB_KEYS = {"host", "port", "https_port", "public_host", "database", "keep_games", "keep_days", "pin", "pin_file"}
SPEAKER_KEYS = {"enabled", "voice", "rate"}
RATE_RANGE = (80, 450)        # espeak-ng -s: words a minute (its own default is 175)

# Bounds for the camera reader's thresholds (vision.config.ReaderConfig).  A threshold not
# listed (a new one) still gets READER_FALLBACK_RANGE: no number goes unchecked.
READER_RANGES: dict[str, tuple[float, float]] = {
    "min_marker_perimeter_rate": (0.001, 1.0), "threshold_window_min": (3, 99),
    "threshold_window_max": (3, 199), "threshold_window_step": (1, 100), "pixels_per_cell": (1, 32),
    "second_look_max_squares": (0, 156), "homography_threshold_px": (0.1, 100),
    "min_board_markers": (1, 4), "max_reprojection_px": (0.01, 100), "default_hfov_deg": (5, 175),
    "max_k1": (0, 2), "k1_step": (0.001, 1), "distortion_gain": (0, 1),
    "min_stickers_for_distortion": (1, 200), "distortion_min_spread": (0, 1),
    "distortion_min_fit_px": (0, 100), "distortion_fit_weight": (0, 10), "flat_sticker_mm": (0, 100),
    "parallax_min_height_mm": (0, 500), "parallax_corner_px": (0.01, 10),
    "parallax_prior_calibrated": (0.001, 10), "parallax_prior_measured": (0.001, 10),
    "parallax_prior_assumed": (0.001, 10), "parallax_conflict": (0.1, 100), "parallax_sigmas": (0.1, 20),
    "bump_threshold_px": (0.1, 500), "square_margin_mm": (0, 15), "max_rotation_deviation_deg": (0, 45),
    "size_tolerance": (0, 5), "speck_ratio": (0, 1), "sheet_tolerance_mm": (0, 200),
    "occlusion_colour_distance": (0, 300), "occlusion_luma_weight": (0, 10),
    "occlusion_cell_fraction": (0, 1), "footprint_scale": (0.1, 10), "tall_top_scale": (0.1, 10),
    "min_visible_fraction": (0, 1), "card_zone_ring_mm": (0, 200), "occlusion_min_squares": (1, 156),
    "sticker_white_lightness": (0, 100), "sticker_white_chroma": (0, 200),
    "sticker_white_fraction": (0, 1), "unread_texture_ratio": (0, 1000), "decorated_factor": (0, 100),
}
READER_FALLBACK_RANGE = (0.0, 10_000.0)


class TableConfigError(Worded, ValueError):
    """A configuration value is wrong; the message names the file and the key (raised with
    wording data, engine.wording.Worded: ``flure`` and the pages say it in the reader's language)."""


@dataclass(frozen=True)
class ExposureConfig:
    exposure_us: int = 0                          # 0 = automatic
    analogue_gain: float = 0.0                    # 0 = automatic
    colour_gains: tuple[float, float] | None = None   # None = automatic white balance

    @property
    def locked(self) -> bool:
        return bool(self.exposure_us or self.analogue_gain or self.colour_gains)


@dataclass(frozen=True)
class CameraConfig:
    source: str = "simulated"
    resolution: tuple[int, int] = (1920, 1080)
    fps: float = 4.0
    calibration: Path | None = None
    marker_scheme: Path | None = None
    pieces: Path | None = None        # what `flure teach` learned: read the pieces without stickers (NOSTICKERS.md)
    exposure: ExposureConfig = field(default_factory=ExposureConfig)
    reader: dict[str, Any] = field(default_factory=dict)   # ReaderConfig overrides, validated

    @property
    def enabled(self) -> bool:
        return self.source != "none"

    def source_options(self) -> dict:
        """What ``vision.sources.open_source`` takes from this section: the size and, when
        locked, the exposure."""
        options: dict[str, Any] = {"width": self.resolution[0], "height": self.resolution[1]}
        if self.exposure.locked:
            options["exposure"] = {"exposure_us": self.exposure.exposure_us,
                                   "analogue_gain": self.exposure.analogue_gain,
                                   "colour_gains": self.exposure.colour_gains}
        return options

    def reader_config(self):
        """The camera reader's thresholds: ReaderConfig's defaults with this file's overrides."""
        from vision.config import DEFAULT_CONFIG
        return dataclasses.replace(DEFAULT_CONFIG, **self.reader)


@dataclass(frozen=True)
class SessionConfig:
    mode: str = "confirm"
    stable_frames: int = 3
    language: str = "en"      # the table's own language: the Pi speaker's, and pages with no other hint


@dataclass(frozen=True)
class SpeakerConfig:
    """The Pi's speaker (espeak-ng): off unless enabled; the voice follows [table] language unless set."""
    enabled: bool = False
    voice: str = ""           # an espeak-ng voice name; "" = the table language's
    rate: int = 150           # words a minute


@dataclass(frozen=True)
class WebConfig:
    host: str = "0.0.0.0"
    port: int = 8000
    https_port: int = 8443    # the same app over HTTPS (the camera page needs it; 0 = any free port)
    public_host: str = ""
    database: Path | None = None
    keep_games: int = 100     # the journal keeps this many games before the newest …
    keep_days: int = 30       # … none started longer ago than this (a player keeps one with Download)
    pin: str = ""
    pin_file: Path | None = None

    def database_path(self) -> Path:
        """The journal: as configured, else the session's default (systemd's StateDirectory or
        the user's data folder)."""
        if self.database is not None:
            return self.database
        from .table.session.store import default_path
        return default_path()

    def read_pin(self) -> str:
        """The configured PIN ("" = make a random one); a pin_file that cannot be read is an error."""
        if self.pin or self.pin_file is None:
            return self.pin
        try:
            text = self.pin_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            why = os_reason(exc)
            raise TableConfigError(Text(N_("%(path)s: cannot read the PIN file ([web] pin_file): %(why)s"),
                                        path=str(self.pin_file), why=why)) from None
        pin = (text.strip().splitlines() or [""])[0].strip()
        if not _valid_pin(pin):
            raise TableConfigError(Text(N_("%(path)s: the PIN file's first line must be 4 to 64 letters or "
                                           "digits ([web] pin_file)"), path=str(self.pin_file)))
        return pin


@dataclass(frozen=True)
class TableConfig:
    camera: CameraConfig
    table: SessionConfig
    web: WebConfig
    hardware: HardwareConfig
    speaker: SpeakerConfig = field(default_factory=SpeakerConfig)
    path: Path | None = None                 # the user's file, None = defaults only
    values: dict[str, Any] = field(default_factory=dict)    # "section.key" -> effective value
    origins: dict[str, str] = field(default_factory=dict)   # "section.key" -> default / file / command line


# --- reading -----------------------------------------------------------------------------

def read_toml(path: Path) -> dict:
    """A TOML file as a dict, or one plain line saying why not (missing, binary, mistyped)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TableConfigError(Text(N_("%(path)s: cannot read the configuration file (%(why)s)"),
                                     path=str(path), why=os_reason(exc))) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise TableConfigError(Text(N_("%(path)s: not a TOML text file (it holds bytes that are not UTF-8 text)"),
                                     path=str(path))) from None
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TableConfigError(Text(N_("%(path)s: not valid TOML (%(why)s)"), path=str(path), why=exc)) from None
    except RecursionError:
        raise TableConfigError(Text(N_("%(path)s: lists or tables are nested too deeply"), path=str(path))) from None
    if data_depth(parsed) > MAX_DEPTH:   # merging and checking walk the data recursively
        raise TableConfigError(Text(N_("%(path)s: lists or tables are nested too deeply (at most %(depth)s levels)"),
                                 path=str(path), depth=MAX_DEPTH))
    return parsed


def default_text() -> str:
    """The documented defaults as one file: the table sections, then the hardware's."""
    table = DEFAULT_PATH.read_text(encoding="utf-8").rstrip("\n")
    hardware = HARDWARE_DEFAULT_PATH.read_text(encoding="utf-8")
    return f"{table}\n\n# --- The LED grid and the buttons (hardware/default.toml) ---\n\n{hardware}"


def default_dict() -> dict:
    return tomllib.loads(default_text())


def set_in_text(text: str, settings: Mapping[str, Any]) -> str:
    """``text`` (a documented configuration) with ``section.key = value`` lines set, keeping
    every comment: the installer writes the defaults with the service's own PIN file and name."""
    import re

    lines = text.splitlines()
    for dotted, value in settings.items():
        section, _, key = dotted.rpartition(".")
        header = re.compile(r"^\s*\[" + re.escape(section) + r"\]\s*(#.*)?$")
        start = next((i for i, line in enumerate(lines) if header.match(line)), None)
        if start is None:
            raise TableConfigError(Text(N_("no [%(section)s] section to set %(key)s in"), section=section, key=key))
        end = next((i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
        pattern = re.compile(r"^(\s*)#?\s*" + re.escape(key) + r"\s*=\s*(\"[^\"]*\"|[^#]*?)(\s*#.*)?$")
        new = f"{key} = {toml_value(value)}"
        for i in range(start + 1, end):
            m = pattern.match(lines[i])
            if m:
                line = f"{m.group(1)}{new}"
                if m.group(3):     # the comment stays in its column
                    line = line.ljust(m.start(3)) if len(line) < m.start(3) else line + " "
                    line += m.group(3).strip()
                lines[i] = line
                break
        else:
            lines.insert(start + 1, new)
    return "\n".join(lines) + "\n"


def load_table_config(path: str | Path | None = None,
                      overrides: Mapping[str, Any] | None = None) -> TableConfig:
    """The effective configuration: defaults, then the file at ``path``, then ``overrides``
    (``{"web.port": 8080}`` from the command line).  Raises TableConfigError."""
    defaults = default_dict()
    file_path = Path(path) if path is not None else None
    user = read_toml(file_path) if file_path is not None else {}
    where = str(file_path) if file_path is not None else Term(N_("the defaults"))
    try:
        only_keys("top level", user, set(TABLE_SECTIONS) | set(HARDWARE_SECTIONS))
        for name, section in user.items():
            if not isinstance(section, Mapping):
                raise HardwareConfigError(not_a_section(name, section))
    except HardwareConfigError as exc:
        raise TableConfigError(_at(where, exc)) from None
    values, origins = {}, {}
    _flatten(defaults, "", values, origins, "default")
    _flatten(user, "", values, origins, f"file {file_path}")
    merged = _merge(defaults, user)
    from_file = copy.deepcopy(merged)
    for dotted, value in (overrides or {}).items():
        if value is None:
            continue
        section, _, key = dotted.rpartition(".")
        merged.setdefault(section, {})[key] = value
        values[dotted], origins[dotted] = value, "command line"
    base = file_path.parent if file_path is not None else Path.cwd()

    def origin_of(section: str, key: str) -> str:
        return origins.get(f"{section}.{key}", "default")

    def build(data: Mapping):
        return (_camera(data.get("camera", {}), base, origin_of), _session(data.get("table", {})),
                _web(data.get("web", {}), base, origin_of), _speaker(data.get("speaker", {})),
                load_hardware_config({k: data[k] for k in HARDWARE_SECTIONS if k in data}))

    try:
        camera, table, web, speaker, hardware = build(merged)
    except (HardwareConfigError, ValueError) as exc:
        if merged == from_file:
            raise TableConfigError(_at(where, exc)) from None
        try:                 # the file alone: its own error first, else the command line is to blame
            build(from_file)
        except (HardwareConfigError, ValueError) as file_exc:
            raise TableConfigError(_at(where, file_exc)) from None
        raise TableConfigError(_at(Term(N_("command line")), exc)) from None
    hardware = dataclasses.replace(hardware, source=str(where))
    return TableConfig(camera=camera, table=table, web=web, hardware=hardware, speaker=speaker, path=file_path,
                       values=values, origins=origins)


# --- sections ------------------------------------------------------------------------------

def _camera(d: Mapping, base: Path, origin_of) -> CameraConfig:
    only_keys("camera", d, CAMERA_KEYS)
    source = _text("camera", "source", d.get("source", "simulated"))
    if not source:
        raise HardwareConfigError(Text(N_("[camera] source must name a camera: \"0\", \"picamera\", a file, "
                                          "\"simulated\", \"synthetic\" or \"none\"")))
    res = d.get("resolution", [1920, 1080])
    if not isinstance(res, list) or len(res) != 2:
        raise HardwareConfigError(Text(N_("[camera] resolution must be [width, height] like [1920, 1080], "
                                          "not %(value)s"), value=repr(res)))
    width = _whole("camera", "resolution width", res[0], 160, 8192)
    height = _whole("camera", "resolution height", res[1], 120, 8192)
    fps = check_number("camera", "fps", d.get("fps", 4.0), 0.2, 120)
    exposure = d.get("exposure", {})
    reader = d.get("reader", {})
    for name, sub in (("exposure", exposure), ("reader", reader)):
        if not isinstance(sub, Mapping):
            raise HardwareConfigError(Text(N_("[camera.%(name)s] must be a section, not %(value)s"),
                                           name=name, value=repr(sub)))
    return CameraConfig(source=source, resolution=(width, height), fps=float(fps),
                        calibration=_path("camera", "calibration", d.get("calibration", ""), base,
                                          origin_of("camera", "calibration")),
                        marker_scheme=_path("camera", "marker_scheme", d.get("marker_scheme", ""), base,
                                            origin_of("camera", "marker_scheme")),
                        pieces=_path("camera", "pieces", d.get("pieces", ""), base, origin_of("camera", "pieces")),
                        exposure=_exposure(exposure), reader=_reader(reader))


def _exposure(d: Mapping) -> ExposureConfig:
    only_keys("camera.exposure", d, EXPOSURE_KEYS)
    exposure_us = _whole("camera.exposure", "exposure_us", d.get("exposure_us", 0), 0, 10_000_000)
    gain = float(check_number("camera.exposure", "analogue_gain", d.get("analogue_gain", 0.0), 0, 64))
    if 0 < gain < 1:
        raise HardwareConfigError(Text(N_("[camera.exposure] analogue_gain = %(gain)s must be 0 (automatic) "
                                          "or 1.0 to 64"), gain=gain))
    gains = d.get("colour_gains", [])
    if not isinstance(gains, list) or len(gains) not in (0, 2):
        raise HardwareConfigError(Text(N_("[camera.exposure] colour_gains must be [] (automatic) or [red, blue] "
                                          "like [1.8, 1.5], not %(value)s"), value=repr(gains)))
    colour = tuple(float(check_number("camera.exposure", f"colour_gains {name}", g, 0.1, 32))
                   for name, g in zip(("red", "blue"), gains)) or None
    return ExposureConfig(exposure_us=exposure_us, analogue_gain=gain, colour_gains=colour)


def _reader(d: Mapping) -> dict[str, Any]:
    from vision.config import ReaderConfig

    fields = {f.name: f for f in dataclasses.fields(ReaderConfig)}
    only_keys("camera.reader", d, set(fields))
    clean: dict[str, Any] = {}
    for key, value in d.items():
        default = fields[key].default
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise HardwareConfigError(not_a_switch("camera.reader", key, value))
            clean[key] = value
        elif isinstance(default, (int, float)):
            lo, hi = READER_RANGES.get(key, READER_FALLBACK_RANGE)
            if isinstance(default, int):
                clean[key] = _whole("camera.reader", key, value, lo, hi)
            else:
                clean[key] = float(check_number("camera.reader", key, value, lo, hi))
        elif isinstance(default, tuple):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise HardwareConfigError(Text(N_("[camera.reader] %(key)s must be a list of names like "
                                                  "%(example)s, not %(value)s"), key=key,
                                               example=repr(list(default)), value=repr(value)))
            clean[key] = tuple(value)
        else:
            raise HardwareConfigError(Text(N_("[camera.reader] %(key)s cannot be set in the configuration file"),
                                           key=key))
    try:
        dataclasses.replace(ReaderConfig(), **clean)
    except (TypeError, ValueError) as exc:
        raise HardwareConfigError(Text(N_("[camera.reader] %(why)s"), why=str(exc))) from None
    lo = clean.get("threshold_window_min", ReaderConfig.threshold_window_min)
    hi = clean.get("threshold_window_max", ReaderConfig.threshold_window_max)
    if lo > hi:
        raise HardwareConfigError(Text(N_("[camera.reader] threshold_window_min = %(lo)s is above "
                                          "threshold_window_max = %(hi)s"), lo=lo, hi=hi))
    return clean


def _session(d: Mapping) -> SessionConfig:
    from .i18n import LANGUAGES

    only_keys("table", d, {"mode", "stable_frames", "language"})
    mode = d.get("mode", "confirm")
    if mode not in MODES:
        raise HardwareConfigError(Text(N_("[table] mode %(mode)s is not known (use \"auto\" or \"confirm\")"),
                                       mode=repr(mode)))
    language = _text("table", "language", d.get("language", "en")).lower()
    if language not in LANGUAGES:
        raise HardwareConfigError(Text(N_("[table] language = %(language)s is not a language the table speaks: use "
                                          "%(choices)s or %(last)s"), language=repr(language),
                                       choices=", ".join(repr(x) for x in LANGUAGES[:-1]), last=repr(LANGUAGES[-1])))
    return SessionConfig(mode=mode, stable_frames=_whole("table", "stable_frames", d.get("stable_frames", 3), 1, 100),
                         language=language)


def _speaker(d: Mapping) -> SpeakerConfig:
    only_keys("speaker", d, SPEAKER_KEYS)
    enabled = d.get("enabled", False)
    if not isinstance(enabled, bool):
        raise HardwareConfigError(not_a_switch("speaker", "enabled", enabled))
    voice = _text("speaker", "voice", d.get("voice", ""))
    if voice and not all(c.isalnum() or c in "-_+/" for c in voice):
        raise HardwareConfigError(Text(N_("[speaker] voice = %(voice)s must be an espeak-ng voice name like \"fr\" "
                                          "or \"en-us\" (espeak-ng --voices lists them), or \"\" for the table "
                                          "language's"), voice=repr(voice)))
    return SpeakerConfig(enabled=enabled, voice=voice, rate=_whole("speaker", "rate", d.get("rate", 150), *RATE_RANGE))


def _web(d: Mapping, base: Path, origin_of) -> WebConfig:
    only_keys("web", d, WEB_KEYS)
    host = _text("web", "host", d.get("host", "0.0.0.0"))
    if not host:
        raise HardwareConfigError(Text(N_("[web] host must be an address like \"0.0.0.0\" or \"127.0.0.1\"")))
    public = _text("web", "public_host", d.get("public_host", ""))
    if any(c in public for c in "/: \t"):
        raise HardwareConfigError(Text(N_("[web] public_host = %(value)s must be a bare name like \"flure.local\" "
                                          "(no http://, no port)"), value=repr(public)))
    pin = _text("web", "pin", d.get("pin", ""))
    if pin and not _valid_pin(pin):
        raise HardwareConfigError(Text(N_("[web] pin must be 4 to 64 letters or digits")))
    return WebConfig(host=host, port=_whole("web", "port", d.get("port", 8000), 0, 65535), public_host=public,
                     https_port=_whole("web", "https_port", d.get("https_port", 8443), 0, 65535),
                     database=_path("web", "database", d.get("database", ""), base, origin_of("web", "database")),
                     keep_games=_whole("web", "keep_games", d.get("keep_games", 100), 0, 1_000_000),
                     keep_days=_whole("web", "keep_days", d.get("keep_days", 30), 1, 36_500),
                     pin=pin, pin_file=_path("web", "pin_file", d.get("pin_file", ""), base,
                                             origin_of("web", "pin_file")))


# --- helpers -------------------------------------------------------------------------------

def _whole(section: str, key: str, value: Any, lo: float, hi: float) -> int:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 2 ** 53:
        value = int(value)
    if isinstance(value, float):
        check_number(section, key, value, lo, hi)     # nan, inf, 1e300: out of range, said so first
    if isinstance(value, bool) or not isinstance(value, int):
        raise HardwareConfigError(Text(N_("[%(section)s] %(key)s must be a whole number, not %(value)s"),
                                       section=section, key=key, value=repr(value)))
    return int(check_number(section, key, value, lo, hi))


def _text(section: str, key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise HardwareConfigError(Text(N_("[%(section)s] %(key)s must be text in quotes, not %(value)s"),
                                       section=section, key=key, value=repr(value)))
    return value.strip()


def _path(section: str, key: str, value: Any, base: Path, origin: str) -> Path | None:
    """A file name; relative ones are taken from the configuration file's folder (from the
    working folder when the name came from the command line)."""
    text = _text(section, key, value)
    if not text:
        return None
    p = Path(text).expanduser()
    if not p.is_absolute():
        p = (Path.cwd() if origin == "command line" else base) / p
    return p


def _valid_pin(pin: str) -> bool:
    return 4 <= len(pin) <= 64 and pin.isascii() and pin.isalnum()


def toml_value(value: Any) -> str:
    """``value`` written as TOML (for `flure config show` and the installer's settings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    import json
    return json.dumps(str(value))   # a TOML basic string is JSON's string syntax


def _merge(base: dict, over: Mapping) -> dict:
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict) and key != "squares":
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _flatten(data: Mapping, prefix: str, values: dict, origins: dict, origin: str) -> None:
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and key != "squares" and dotted != "buttons.pins":
            _flatten(value, dotted + ".", values, origins, origin)
        else:
            values[dotted], origins[dotted] = value, origin


def _at(where, exc: Exception) -> Text:
    """``where: the error``, the error kept as wording data (rendered in the reader's language)."""
    return Text(N_("%(where)s: %(error)s"), where=where, error=exc)


def describe(config: TableConfig) -> list[tuple[str, Any, str]]:
    """(``section.key``, effective value, where it came from) for every key, in file order."""
    return [(key, config.values[key], config.origins[key]) for key in config.values]


def parse_setting(text: str) -> tuple[str, Any]:
    """``"web.port=8080"`` -> ("web.port", 8080): the value read as TOML, else as plain text."""
    key, sep, raw = text.partition("=")
    if not sep or "." not in key.strip():
        raise TableConfigError(Text(N_("%(setting)s: give a setting as section.key=value, like web.port=8080"),
                                 setting=repr(text)))
    try:
        value = tomllib.loads(f"v = {raw.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()
    return key.strip(), value


def default_with(settings: list[str]) -> str:
    """The documented defaults with ``section.key=value`` settings (``flure config default --set``)."""
    return set_in_text(default_text(), dict(parse_setting(s) for s in settings))


def main(argv: list[str] | None = None) -> int:
    """``python -m companion_app.config [section.key=value ...]``: what ``flure config default
    --set …`` prints, for deploy/install.sh (which runs before the app is installed)."""
    import sys

    try:
        print(default_with(argv if argv is not None else sys.argv[1:]), end="")
    except TableConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
