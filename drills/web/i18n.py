"""The app's own words in both languages the CLI speaks: the [web] section of the one catalogue
(drills/messages.toml). The page gets the whole table, so the language toggle switches without a
reload (and without losing unsaved text in the editor)."""

from __future__ import annotations

from .. import messages

LANGS = ("zh", "en")

def table(lang: str) -> dict:
    return messages.table("web", lang if lang in LANGS else "zh")


def both() -> dict:
    return {lang: table(lang) for lang in LANGS}
