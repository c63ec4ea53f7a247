"""Renumber the course's chapters in one command.

    python tools/renumber.py 02:04 03:05 10:13        # chapter 02 becomes 04, 03 becomes 05, ...
    make renumber MOVES="02:04 03:05"

A chapter's number lives in many places: its notebooks (``book/``, ``solutions/``,
``exercises/``), its exercise module (``course/exercises/chNN.py``) and its wrong answers
(``tests/wrong_answers/chNN.py``), its exercise ids (``check("03.run_backward", ...)``), the chapter
map, the links and titles of every page (``[03 · Backward: the engine](03_backward_engine.ipynb)``),
and the prose ("chapter 03", "chapters 03 and 05"). This script renames the files (with ``git mv``)
and rewrites every tracked text file, all moves at once (so 02:03 03:02 swaps two chapters), then
regenerates the exercise notebooks from the solutions and re-executes chapter 00, which draws the
map. ``tests/test_chapter_references.py`` checks afterwards that every reference resolves.

What it does not do: write the new chapter into ``chapter_map.CHAPTERS`` and ``BUILDS_ON`` (a
chapter that does not exist yet has no number to move from), or rewrite prose that spells a number
out ("the third chapter").
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIRS = ("book", "solutions", "exercises")
CHAPTER_MAP = Path("package/glasstorch/course/chapter_map.py")
NOT_REWRITTEN = {Path("tools/renumber.py"), Path("tests/test_renumber.py")}  # their samples stay

# Words after which a two-digit number (or a list of them: "03, 05 and 07", "06–10") is a chapter.
CHAPTER_WORDS = r"(?:[Cc]hapters?|[Ee]xercises|[Ss]olutions|[Cc]h\.)"
MARK = "\ue000"  # a private-use character: never in the course's text
NUMBER_LIST = r"\d\d(?:(?:,\s+and\s+|,\s*|\s+and\s+|\s+or\s+|\s+to\s+|\s*[–-]\s*)\d\d)*"


def chapter_slugs(root: Path) -> dict[str, str]:
    """{"02": "02_computational_graph", ...}: the chapters in ``book/``."""
    return {path.name[:2]: path.stem for path in sorted((root / "book").glob("[0-9][0-9]_*.ipynb"))}


def check_moves(moves: dict[str, str], existing: set[str]) -> None:
    """Refuse moves that would lose or merge a chapter."""
    for old, new in moves.items():
        if not re.fullmatch(r"\d\d", old) or not re.fullmatch(r"\d\d", new):
            raise ValueError(f"a move is two two-digit numbers, OLD:NEW; got {old}:{new}")
        if old not in existing:
            raise ValueError(f"there is no chapter {old} to move (chapters: {', '.join(sorted(existing))})")
    targets = list(moves.values())
    if len(set(targets)) != len(targets):
        raise ValueError(f"two chapters would get the same number: {sorted(targets)}")
    staying = existing - set(moves)
    clashes = sorted(set(targets) & staying)
    if clashes:
        raise ValueError(f"chapter {clashes[0]} is not moved, but another chapter would take its number")


def rewrite_text(text: str, moves: dict[str, str], slugs: dict[str, str], *, quoted: bool = False) -> str:
    """``text`` with every reference to a moved chapter renumbered, all moves at once.

    ``quoted`` also renumbers quoted numbers ("02"): only for the chapter map, where every quoted
    two-digit string is a chapter."""
    if not moves:
        return text
    olds = "|".join(sorted(moves))

    def renumbered(number: str) -> str:
        # marked, not yet renumbered: a later pattern must not take the new number for an old one
        return f"{MARK}{number}{MARK}" if number in moves else number

    patterns = [
        # 02_computational_graph (files, links, page names): the chapter's own slug only
        (rf"(?<![A-Za-z0-9.])({'|'.join(re.escape(slugs[o]) for o in sorted(moves) if o in slugs)})(?!\w)",
         lambda m: renumbered(m.group(1)[:2]) + m.group(1)[2:]),
        # ch02 (exercise modules, wrong answers)
        (rf"(?<![A-Za-z0-9])ch({olds})(?!\w)", lambda m: "ch" + renumbered(m.group(1))),
        # exercise ids: 03.run_backward
        (rf"(?<![\w.])({olds})\.(?=[A-Za-z_])", lambda m: renumbered(m.group(1)) + "."),
        # titles and link texts: "03 · Backward"
        (rf"(?<![\w.])({olds})(?= ·| \\u00b7)", lambda m: renumbered(m.group(1))),
        # a link whose text is the bare number: [03](03_backward_engine.ipynb)
        (rf"\[({olds})\](?=\((?:[^)]*/)?{MARK}?\d\d{MARK}?_)", lambda m: f"[{renumbered(m.group(1))}]"),
        # a glob for a chapter's files: "book/03_*.ipynb"
        (rf"(?<![A-Za-z0-9.])({olds})(?=_\*)", lambda m: renumbered(m.group(1))),
        # list items that start with a chapter number: "- 03 Backward: the engine"
        (rf"(?m)^(\s*\"?[-*] )({olds})(?= )", lambda m: m.group(1) + renumbered(m.group(2))),
        # a notebook's metadata: "glasstorch": {"chapter": "03"}
        (rf"(\"chapter\": \")({olds})(\")", lambda m: m.group(1) + renumbered(m.group(2)) + m.group(3)),
        # prose: "chapter 03", "chapters 03 and 05", "exercises 06–10"
        (rf"\b({CHAPTER_WORDS}\s+)({NUMBER_LIST})\b",
         lambda m: m.group(1) + re.sub(r"\d\d", lambda n: renumbered(n.group(0)), m.group(2))),
    ]
    if quoted:
        patterns.append((rf"\"({olds})\"", lambda m: f'"{renumbered(m.group(1))}"'))
    # Each pattern marks the numbers it renumbers (MARK 03 MARK); a marked number is no longer two
    # digits standing alone, so no other pattern takes it again ("Exercises 03 · ..." is both prose and
    # a title). Then every mark becomes the new number, all moves at once.
    for pattern, replace in patterns:
        text = re.sub(pattern, replace, text)
    return re.sub(rf"{MARK}(\d\d){MARK}", lambda m: moves[m.group(1)], text)


def renamed(path: Path, moves: dict[str, str], slugs: dict[str, str]) -> Path:
    """Where a file goes: ``book/03_backward_engine.ipynb``, ``.../ch03.py`` move; others stay."""
    name = path.name
    for old, new in moves.items():
        slug = slugs.get(old)
        if slug and (name == slug + path.suffix or name.startswith(slug + ".")):
            return path.with_name(new + name[2:])
        if name == f"ch{old}.py":
            return path.with_name(f"ch{new}.py")
    return path


def tracked_files(root: Path) -> list[Path]:
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True, capture_output=True).stdout
    return [Path(name) for name in listing.decode().split("\0") if name]


def renumber(root: Path, moves: dict[str, str], *, execute: bool = True, log=print) -> list[Path]:
    """Rename and rewrite; returns the files changed. ``execute`` regenerates the exercises and
    re-runs chapter 00 (its map)."""
    slugs = chapter_slugs(root)
    check_moves(moves, set(slugs))
    changed = []
    for relative in tracked_files(root):
        if relative in NOT_REWRITTEN or not (root / relative).is_file():
            continue
        try:
            text = (root / relative).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a picture or other binary file
        new_text = rewrite_text(text, moves, slugs, quoted=relative == CHAPTER_MAP)
        if new_text != text:
            (root / relative).write_text(new_text, encoding="utf-8")
            changed.append(relative)
    moved = [(p, renamed(p, moves, slugs)) for p in tracked_files(root)]
    moved = [(old, new) for old, new in moved if old != new]
    # two steps through a temporary name, so that a swap (02:03 03:02) never overwrites a file
    for old, new in moved:
        subprocess.run(["git", "mv", str(old), str(old) + ".renumbering"], cwd=root, check=True)
    for old, new in moved:
        subprocess.run(["git", "mv", str(old) + ".renumbering", str(new)], cwd=root, check=True)
        log(f"moved {old} -> {new}")
    log(f"rewrote {len(changed)} files")
    if execute:
        python = sys.executable
        subprocess.run([python, "-m", "glasstorch.course.generate", "solutions", "exercises"], cwd=root, check=True)
        subprocess.run([python, "tools/run_notebooks.py", "book/00_welcome.ipynb"], cwd=root, check=True)
    return changed + [new for _old, new in moved]


def parse_moves(arguments: list[str]) -> dict[str, str]:
    moves = {}
    for argument in arguments:
        old, sep, new = argument.partition(":")
        if not sep:
            raise ValueError(f"a move is OLD:NEW, like 02:04; got {argument!r}")
        if old in moves:
            raise ValueError(f"chapter {old} is moved twice")
        moves[old] = new
    return moves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("moves", nargs="+", help="OLD:NEW, for example 02:04")
    parser.add_argument("--no-execute", action="store_true",
                        help="do not regenerate the exercises or re-run chapter 00")
    options = parser.parse_args(argv)
    try:
        moves = parse_moves(options.moves)
        renumber(ROOT, moves, execute=not options.no_execute)
    except ValueError as error:
        print(f"renumber: {error}", file=sys.stderr)
        return 2
    print("Now add any new chapter to CHAPTERS and BUILDS_ON in", CHAPTER_MAP, "and run make test.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
