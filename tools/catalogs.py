"""The Chinese edition's message catalogs: extract the book's prose, update the .po files, report.

    python tools/catalogs.py update    # after changing English prose: new messages, stale ones fuzzy
    python tools/catalogs.py check     # what is untranslated, fuzzy or out of date (exit 1 if any)
    make catalogs                      # the same as update

Sphinx's gettext builder extracts every paragraph, heading, list item and table cell of the
chapters, the exercise pages and the Markdown pages (code cells and outputs are not prose); the
catalogs live in book/locales/zh_CN/LC_MESSAGES/, one per page. `sphinx-intl` merges new
messages into them, keeping every translation whose English did not change and marking as fuzzy
those whose English changed a little.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
LANGUAGE = "zh_CN"
LOCALES = BOOK / "locales"
CATALOGS = LOCALES / LANGUAGE / "LC_MESSAGES"


def extract(pot_dir: Path) -> None:
    """The .pot templates of every page into ``pot_dir`` (the notebooks are read, not executed)."""
    subprocess.run([sys.executable, "-m", "sphinx", "-b", "gettext", "-q", "-E",
                    "-D", "nb_execution_mode=off", "-d", str(pot_dir / ".doctrees"), str(BOOK), str(pot_dir)],
                   cwd=ROOT, check=True)


def messages(path: Path) -> dict[str, tuple[str, bool]]:
    """{msgid: (msgstr, fuzzy)} of a .po or .pot file, without its header."""
    with path.open("rb") as file:
        catalog = read_po(file)
    return {m.id: (m.string, m.fuzzy) for m in catalog if m.id}


def templates(pot_dir: Path) -> dict[str, Path]:
    """{"04_computational_graph": path of its .pot, "_exercises/05_backward_engine": ...}."""
    return {str(p.relative_to(pot_dir).with_suffix("")): p for p in sorted(pot_dir.rglob("*.pot"))}


def update() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        extract(Path(tmp))
        subprocess.run([sys.executable, "-m", "sphinx_intl", "update", "-p", tmp, "-l", LANGUAGE,
                        "-d", str(LOCALES), "-w", "100"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        wanted = set(templates(Path(tmp)))
    for po in CATALOGS.rglob("*.po"):  # a page that is gone takes its catalog with it
        if str(po.relative_to(CATALOGS).with_suffix("")) not in wanted:
            po.unlink()
            print(f"removed {po.relative_to(ROOT)}: its page is gone")


def problems(pot_dir: Path) -> list[str]:
    """Pages whose catalog is missing or out of date, and messages untranslated or fuzzy."""
    found = []
    for page, pot in templates(pot_dir).items():
        po = CATALOGS / f"{page}.po"
        if not po.exists():
            found.append(f"{page}: no catalog (run make catalogs)")
            continue
        wanted, have = messages(pot), messages(po)
        new = [m for m in wanted if m not in have]
        if new:
            found.append(f"{page}: {len(new)} messages not in the catalog (run make catalogs), first: {new[0][:80]!r}")
        for msgid, (msgstr, fuzzy) in have.items():
            if msgid not in wanted:
                continue  # sphinx-intl drops it at the next update
            if fuzzy:
                found.append(f"{page}: fuzzy: {msgid[:80]!r}")
            elif not msgstr:
                found.append(f"{page}: untranslated: {msgid[:80]!r}")
    return found


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    if command == "update":
        update()
        return 0
    if command == "check":
        with tempfile.TemporaryDirectory() as tmp:
            extract(Path(tmp))
            found = problems(Path(tmp))
        print("\n".join(found) if found else "every message translated, every catalog up to date")
        return 1 if found else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
