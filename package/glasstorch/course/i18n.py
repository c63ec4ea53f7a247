"""The course's messages in the learner's language: English (the default) or Chinese.

    GLASSTORCH_LANG=zh_CN      # in the environment (make lab-zh sets it), or in a notebook:
    from glasstorch.course import set_language; set_language("zh_CN")

What a check cell prints (which case failed, expected versus got, the hint) and each exercise's
title, case names and hints are looked up in ``course/locales/<language>/LC_MESSAGES/course.po``,
written next to the English by ``tools/catalogs.py update`` (which collects every ``_("...")`` of
this package and every exercise's texts) and translated there. A message without a translation
stays English. The catalog is read as it is (a small reader below), so there is no compiled
``.mo`` file to keep in step.
"""
from __future__ import annotations

import ast
import os
from functools import lru_cache
from pathlib import Path

LOCALES = Path(__file__).parent / "locales"
DOMAIN = "course"
LANGUAGES = ("en", "zh_CN")
_language = os.environ.get("GLASSTORCH_LANG", "en")


def set_language(language: str) -> None:
    """Show the course's messages in ``language``: "en" or "zh_CN"."""
    global _language
    if language not in LANGUAGES:
        raise ValueError(f"the course speaks {', '.join(LANGUAGES)}; got {language!r}")
    _language = language


def get_language() -> str:
    return _language if _language in LANGUAGES else "en"


def _(message: str) -> str:
    """``message`` in the course's language (itself when it has no translation)."""
    language = get_language()
    if language == "en" or not message:
        return message
    return catalog(language).get(message, message)


@lru_cache(maxsize=None)
def catalog(language: str) -> dict[str, str]:
    """{English: translation} from the language's course.po: translated, not fuzzy, messages."""
    path = LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    return read_po(path.read_text(encoding="utf-8")) if path.exists() else {}


def read_po(text: str) -> dict[str, str]:
    """The translated, non-fuzzy messages of a .po file's text (msgid/msgstr, each possibly split
    over several quoted lines; no plural forms, which the course does not use)."""
    messages: dict[str, str] = {}
    entry: dict[str, str] = {}
    fuzzy = False
    field = None

    def finish() -> None:
        if entry.get("msgid") and entry.get("msgstr") and not fuzzy:
            messages[entry["msgid"]] = entry["msgstr"]

    for line in text.splitlines() + [""]:
        line = line.strip()
        if not line:
            finish()
            entry, fuzzy, field = {}, False, None
        elif line.startswith("#,"):
            fuzzy = "fuzzy" in line
        elif line.startswith("#"):
            continue
        elif line.startswith(("msgid ", "msgstr ")):
            field, _space, quoted = line.partition(" ")
            entry[field] = ast.literal_eval(quoted)
        elif line.startswith('"') and field:
            entry[field] += ast.literal_eval(line)
    return messages
