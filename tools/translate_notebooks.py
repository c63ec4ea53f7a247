"""The Chinese notebooks for JupyterLab, made from the English ones and the catalogs.

    python tools/translate_notebooks.py            # writes zh_CN/book/ and zh_CN/exercises/
    make lab BOOK_LANG=zh_CN                       # runs it, then opens JupyterLab on zh_CN/book

Each markdown cell is cut into the blocks Sphinx's gettext builder makes messages of (headings,
paragraphs, list items, table cells), and each block whose message has a translation in
book/locales/zh_CN/LC_MESSAGES/ is replaced by it, keeping its markdown prefix ("# ", "* ", "1. ",
"> ") and everything else (HTML, math, blank lines). Code cells and their outputs are copied as
they are. The chapters are rewritten at every run; an exercise notebook is written only where
there is none yet, so a learner's work in zh_CN/exercises/ is never overwritten.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from babel.messages.pofile import read_po
from markdown_it import MarkdownIt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "book" / "_ext"))
from glasstorch_book.editions import translated_summaries  # noqa: E402  (the book's own labels)

ROOT = Path(__file__).resolve().parent.parent
CATALOGS = ROOT / "book" / "locales" / "zh_CN" / "LC_MESSAGES"
OUT = ROOT / "zh_CN"
_MARKDOWN = MarkdownIt("commonmark").enable("table")


def load_catalog(po: Path) -> dict[str, str]:
    """{English message: its Chinese}, translated and not fuzzy messages only."""
    if not po.exists():
        return {}
    with po.open("rb") as file:
        return {m.id: m.string for m in read_po(file) if m.id and m.string and not m.fuzzy}


def message_of(content: str) -> str:
    """The msgid Sphinx makes of a block's text: its lines joined by spaces."""
    return content.replace("\n", " ").strip()


# How the book build rewrites the chapter <-> exercises links (book/_ext/glasstorch_book/notebook_links.py):
# the catalogs hold a message as the book reads it, the notebooks as JupyterLab needs it.
LINK_FORMS = {"book": ("](../exercises/", "](_exercises/"), "exercises": ("](../book/", "](../")}


def lookup(catalog: dict[str, str], message: str, link_form: tuple[str, str] | None) -> str | None:
    """The translation of ``message``, found as the notebook writes it or as the book reads it."""
    if message in catalog:
        return catalog[message]
    if link_form and link_form[0] in message:
        translation = catalog.get(message.replace(*link_form))
        return translation.replace(link_form[1], link_form[0]) if translation else None
    return None


def translate_markdown(source: str, catalog: dict[str, str], link_form: tuple[str, str] | None = None) -> str:
    """``source`` with each block that has a translation replaced by it."""
    lines = source.split("\n")
    edits: list[tuple[int, int, str]] = []   # (first line, end line, new text of the first line)
    in_table = False
    for token in _MARKDOWN.parse(source):
        in_table = {"table_open": True, "table_close": False}.get(token.type, in_table)
        if token.type != "inline" or not token.map:
            continue
        translation = lookup(catalog, message_of(token.content), link_form)
        if not translation:
            continue
        start, end = token.map
        first = token.content.split("\n")[0]
        if in_table:  # a cell: replace its text inside the row, leaving the pipes
            row = lines[start] if not edits or edits[-1][0] != start else edits[-1][2]
            if edits and edits[-1][0] == start:
                edits.pop()
            edits.append((start, start + 1, row.replace(first, translation, 1)))
            continue
        where = lines[start].find(first)
        if where < 0:
            continue  # the text is not where markdown-it says: leave the block in English
        edits.append((start, end, lines[start][:where] + translation))
    for start, end, text in sorted(edits, reverse=True):
        lines[start:end] = [text]
    return "\n".join(lines)


def translate_notebook(notebook: dict, catalog: dict[str, str], link_form: tuple[str, str] | None = None) -> dict:
    """A copy of ``notebook`` with its markdown cells translated; code cells untouched."""
    translated = json.loads(json.dumps(notebook))
    for cell in translated["cells"]:
        if cell["cell_type"] == "markdown":
            text = translated_summaries(translate_markdown("".join(cell["source"]), catalog, link_form))
            cell["source"] = text.splitlines(keepends=True)
    translated["metadata"].setdefault("glasstorch", {})["language"] = "zh_CN"
    return translated


def write(path: Path, notebook: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(out: Path = OUT) -> int:
    written = kept = 0
    for source, catalog_dir, overwrite in (("book", CATALOGS, True), ("exercises", CATALOGS / "_exercises", False)):
        for notebook_path in sorted((ROOT / source).glob("[0-9][0-9]_*.ipynb")):
            target = out / source / notebook_path.name
            if target.exists() and not overwrite:
                kept += 1
                continue
            notebook = json.loads(notebook_path.read_text(encoding="utf-8"))
            catalog = load_catalog(catalog_dir / f"{notebook_path.stem}.po")
            write(target, translate_notebook(notebook, catalog, LINK_FORMS[source]))
            written += 1
    for page in ("glossary.md", "teaching.md"):  # linked from the chapters; not translated here
        (out / "book" / page).write_text((ROOT / "book" / page).read_text(encoding="utf-8"), encoding="utf-8")
    print(f"zh_CN/: {written} notebooks written" + (f", {kept} exercise notebooks kept (your work)" if kept else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
