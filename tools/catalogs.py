"""The Chinese edition's message catalogs: extract the book's prose, update the .po files, report.

    python tools/catalogs.py update    # after changing English prose or a check's message: the book's
                                       # catalogs and the course's (glasstorch/course/locales)
    python tools/catalogs.py update glossary index   # only those pages' catalogs
    python tools/catalogs.py tidy      # repair the markdown pitfalls of translations (bold, "1\\.")
    python tools/catalogs.py check     # what is untranslated, fuzzy or out of date (exit 1 if any)
    make catalogs                      # the same as update

Sphinx's gettext builder extracts every paragraph, heading, list item and table cell of the
chapters, the exercise pages and the Markdown pages (code cells and outputs are not prose); the
catalogs live in book/locales/zh_CN/LC_MESSAGES/, one per page. `sphinx-intl` merges new
messages into them, keeping every translation whose English did not change and marking as fuzzy
those whose English changed a little.
"""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
LANGUAGE = "zh_CN"
LOCALES = BOOK / "locales"
CATALOGS = LOCALES / LANGUAGE / "LC_MESSAGES"
COURSE = ROOT / "package" / "glasstorch" / "course"
COURSE_CATALOG = COURSE / "locales" / LANGUAGE / "LC_MESSAGES" / "course.po"


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


def update(pages: list[str] | None = None) -> None:
    """Merge the pages' new English into their catalogs (``pages``: only those, e.g. "glossary" or
    "_exercises/05_backward_engine", leaving the others' files untouched)."""
    with tempfile.TemporaryDirectory() as tmp:
        extract(Path(tmp) / "all")
        found = templates(Path(tmp) / "all")
        unknown = sorted(set(pages or ()) - set(found))
        if unknown:
            raise SystemExit(f"no such page: {', '.join(unknown)} (pages: {', '.join(found)})")
        chosen = Path(tmp) / "chosen"
        for page, pot in found.items():
            if pages is None or page in pages:
                (chosen / page).parent.mkdir(parents=True, exist_ok=True)
                (chosen / f"{page}.pot").write_bytes(pot.read_bytes())
        subprocess.run([sys.executable, "-m", "sphinx_intl", "update", "-p", str(chosen), "-l", LANGUAGE,
                        "-d", str(LOCALES), "-w", "100"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        wanted = set(found)
    if pages is not None:
        return
    for po in CATALOGS.rglob("*.po"):  # a page that is gone takes its catalog with it
        if str(po.relative_to(CATALOGS).with_suffix("")) not in wanted:
            po.unlink()
            print(f"removed {po.relative_to(ROOT)}: its page is gone")


def course_messages() -> list[str]:
    """What the checks and the grader say: every ``_("...")`` in glasstorch/course, and each
    exercise's title, hint, case names and case hints (for two seeds: some names carry shapes)."""
    import ast

    sys.path.insert(0, str(ROOT / "package"))
    from glasstorch.course.checking import REGISTRY, get_exercise

    found: list[str] = []
    for path in sorted(COURSE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_"
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                found.append(node.args[0].value)
    get_exercise("01.infer")  # registers every chapter's exercises
    for ex in REGISTRY.values():
        found += [ex.title, ex.hint]
        for seed in (0, 1):
            for case in ex.make_cases(seed):
                found += [case.name, case.hint]
    return list(dict.fromkeys(m for m in found if m))


def update_course() -> None:
    """The course's catalog: new messages added, changed ones fuzzy, translations kept."""
    template = Catalog(project="glasstorch", fuzzy=False)
    for message in course_messages():
        template.add(message)
    if COURSE_CATALOG.exists():
        with COURSE_CATALOG.open("rb") as file:
            catalog = read_po(file, locale=LANGUAGE)
        catalog.update(template)
    else:
        catalog = Catalog(locale=LANGUAGE, project="glasstorch", fuzzy=False)
        for message in template:
            if message.id:
                catalog.add(message.id)
    COURSE_CATALOG.parent.mkdir(parents=True, exist_ok=True)
    with COURSE_CATALOG.open("wb") as file:
        write_po(file, catalog, width=100, omit_header=False, ignore_obsolete=True, include_lineno=False)


# Markdown that reads well in English but breaks in a Chinese translation, and its repair:
# - "**时间：**阅读": CommonMark does not close emphasis after a full-width punctuation mark that is
#   followed by a letter, so the asterisks show; the mark goes outside: "**时间**：阅读". Whether a
#   translation shows asterisks is asked of markdown-it itself (the parser MyST uses), and a repair is
#   kept only if it makes them go;
# - a heading "1. The example" translated "1. 例子" would be read as a list: "1\\. 例子".
_MARKDOWN = MarkdownIt("commonmark")
_CLOSING_AFTER_MARK = re.compile(r"([：；，。！？、])\*\*(?=\w)")
_NUMBERED_HEADING = re.compile(r"^(\d+)\. ")


def shows_asterisks(text: str) -> bool:
    """True when ``text``, rendered as markdown, shows "**" outside code."""
    html = re.sub(r"<code>.*?</code>", "", _MARKDOWN.render(text), flags=re.S)
    return "**" in html


def tidy(msgid: str, msgstr: str) -> str:
    """``msgstr`` with the markdown pitfalls of a translation repaired (see above)."""
    if shows_asterisks(msgstr) and not shows_asterisks(msgid):
        repaired = _CLOSING_AFTER_MARK.sub(r"**\1", msgstr)
        if not shows_asterisks(repaired):
            msgstr = repaired
    if _NUMBERED_HEADING.match(msgid) and _NUMBERED_HEADING.match(msgstr):
        msgstr = _NUMBERED_HEADING.sub(r"\1\\. ", msgstr, count=1)
    return msgstr


_TITLED_LINK = re.compile(r"\[(\d\d) · [^\]]+\]\(((?:[^)]*/)?(\d\d_[a-z0-9_]+)\.(?:ipynb|md|html))\)")


def chinese_titles() -> dict[str, str]:
    """{"04_computational_graph": "04 · 计算图", ...}: each chapter's title as its own catalog
    translates it, so that every link to a chapter, on any page, calls it the same."""
    titles = {}
    for po in sorted(CATALOGS.glob("[0-9][0-9]_*.po")):
        with po.open("rb") as file:
            for message in read_po(file):
                if message.string and re.fullmatch(r"\d\d · .+", message.id) and message.id[:2] == po.name[:2]:
                    titles.setdefault(po.stem, message.string)
    return titles


def same_titles(msgstr: str, titles: dict[str, str]) -> str:
    """``msgstr`` with each "[NN · ...](NN_slug.ipynb)" link text the chapter's own title."""
    def title(match: re.Match) -> str:
        chinese = titles.get(match.group(3))
        return f"[{chinese}]({match.group(2)})" if chinese and match.group(1) == match.group(3)[:2] else match.group(0)
    return _TITLED_LINK.sub(title, msgstr)


def tidy_catalogs() -> int:
    """Repair every catalog's translations in place; the number of messages changed."""
    changed = 0
    titles = chinese_titles()
    for po in sorted(CATALOGS.rglob("*.po")):
        with po.open("rb") as file:
            catalog = read_po(file)
        touched = False
        for message in catalog:
            if not (message.id and message.string):
                continue
            repaired = same_titles(tidy(message.id, message.string), titles)
            if repaired != message.string:
                message.string = repaired
                touched = True
                changed += 1
        if touched:
            with po.open("wb") as file:
                write_po(file, catalog, width=100, include_lineno=False)
    return changed


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
            elif tidy(msgid, msgstr) != msgstr or (shows_asterisks(msgstr) and not shows_asterisks(msgid)):
                found.append(f"{page}: markdown that breaks (run tools/catalogs.py tidy): {msgstr[:80]!r}")
    return found


def course_problems() -> list[str]:
    if not COURSE_CATALOG.exists():
        return ["course: no catalog (run make catalogs)"]
    have = messages(COURSE_CATALOG)
    found = [f"course: not in the catalog (run make catalogs): {m[:80]!r}" for m in course_messages() if m not in have]
    found += [f"course: {'fuzzy' if fuzzy else 'untranslated'}: {m[:80]!r}"
              for m, (string, fuzzy) in have.items() if fuzzy or not string]
    return found


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    if command == "update":
        pages = argv[1:] or None
        update(pages)
        if pages is None:
            update_course()
        return 0
    if command == "tidy":
        print(f"{tidy_catalogs()} translations repaired")
        return 0
    if command == "check":
        with tempfile.TemporaryDirectory() as tmp:
            extract(Path(tmp))
            found = problems(Path(tmp)) + course_problems()
        print("\n".join(found) if found else "every message translated, every catalog up to date")
        return 1 if found else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
