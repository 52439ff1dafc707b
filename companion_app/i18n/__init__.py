"""The players' languages: gettext catalogs (Babel) for English, French, German and Spanish.

The catalogs live in ``companion_app/translations/<lang>/LC_MESSAGES/<domain>.po`` and are
managed with Babel's own tools (``python -m companion_app.i18n extract|update|compile``, which
runs ``pybabel`` with this project's keywords).  The English wording in the code is the msgid;
the English catalog is therefore empty by design.  The compiled ``.mo`` files are made at
install (deploy/bootstrap.sh) and, when missing or older than their ``.po``, here on first use,
so a fresh checkout works without a build step.

Two domains: ``messages`` (the app's words, extracted from the code) and ``rules`` (the rules
reference: each rule's title and paragraphs, the template made from ``web/rules.json`` by
``web/make_rules.py``, context = the rule id).  The rules are their own domain because their
msgids come from the spec, not the code, and are long texts a translator reads rule by rule.  The
browser's scripts get the same catalogs as JSON (``catalog(lang)``): one source of words, no
hand-made dictionaries.
"""
from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

log = logging.getLogger(__name__)

LANGUAGES = ("en", "fr", "de", "es")
DEFAULT = "en"
LANGUAGE_NAMES = {"en": "English", "fr": "Français", "de": "Deutsch", "es": "Español"}   # each in its own words
TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"
DOMAIN = "messages"
RULES_DOMAIN = "rules"
DOMAINS = (DOMAIN, RULES_DOMAIN)


def po_path(lang: str, domain: str = DOMAIN) -> Path:
    return TRANSLATIONS / lang / "LC_MESSAGES" / f"{domain}.po"


def pick(lang: str | None) -> str:
    """``lang`` if it is one of ours (``fr-CA`` counts as ``fr``), else the default."""
    code = (lang or "").replace("_", "-").split("-")[0].lower()
    return code if code in LANGUAGES else DEFAULT


def _read(lang: str, domain: str = DOMAIN):
    with po_path(lang, domain).open("rb") as f:
        return read_po(f, locale=lang, domain=domain)


def ensure_compiled() -> list[str]:
    """Compile each ``.po`` (both domains) whose ``.mo`` is missing or stale; returns the
    ``lang/domain`` pairs compiled.  A read-only install (compiled at install already) is left as it is."""
    done = []
    for domain in DOMAINS:
        for lang in LANGUAGES:
            po = po_path(lang, domain)
            mo = po.with_suffix(".mo")
            if not po.exists() or (mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime):
                continue
            try:
                with mo.open("wb") as f:
                    write_mo(f, _read(lang, domain), use_fuzzy=False)
                done.append(f"{lang}/{domain}")
            except OSError as exc:
                log.warning("cannot compile the %s %s catalog to %s: %s", lang, domain, mo, exc)
    return done


@lru_cache(maxsize=None)
def translations(lang: str, domain: str = DOMAIN) -> NullTranslations:
    """The gettext translations of ``lang`` (English and unknown languages give the msgids back)."""
    lang = pick(lang)
    if lang == DEFAULT:
        return NullTranslations()
    ensure_compiled()
    return Translations.load(str(TRANSLATIONS), [lang], domain)


@lru_cache(maxsize=None)
def catalog(lang: str) -> dict[str, str]:
    """``lang``'s catalog as {msgid: text} for the browser: English gives msgid -> msgid, so the
    scripts need no fallback rule of their own.  Read from the same ``.po`` as the server's.
    A message with a context is keyed ``context + "\\x04" + msgid``, gettext's own convention."""
    lang = pick(lang)
    out = {}
    for message in _read(lang):
        if not message.id or isinstance(message.id, tuple):
            continue
        key = f"{message.context}\x04{message.id}" if message.context else message.id
        out[key] = (message.string or message.id) if lang != DEFAULT else message.id
    return out


def gettext(lang: str, message: str, **params) -> str:
    """``message`` in ``lang``, with ``%(name)s`` filled from ``params``."""
    text = translations(lang).gettext(message)
    return text % params if params else text


def pgettext(lang: str, context: str, message: str) -> str:
    return translations(lang).pgettext(context, message)


def ngettext_in(lang: str, singular: str, plural: str, num: int, **params) -> str:
    """The singular or plural message for ``num`` in ``lang`` (its own plural rule), ``%(num)s`` filled."""
    return translations(lang).ngettext(singular, plural, num) % {"num": num, **params}
