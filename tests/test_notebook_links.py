"""book/_ext/glasstorch_book/notebook_links.py: the chapter <-> exercises links, as JupyterLab
opens them in the repository, point to the book's own pages in the HTML book."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "book" / "_ext"))
from glasstorch_book.notebook_links import book_links  # noqa: E402

CHAPTER_LINK = "**Exercises:** [exercises 05](../exercises/05_backward_engine.ipynb): the engine."
BACK_LINK = "Practise [05 · Backward: the engine](../book/05_backward_engine.ipynb)."


def test_a_chapter_links_the_book_page_of_its_exercises():
    assert book_links("05_backward_engine", CHAPTER_LINK) == \
        "**Exercises:** [exercises 05](_exercises/05_backward_engine.ipynb): the engine."


def test_an_exercise_page_links_back_to_its_chapter_page():
    assert book_links("_exercises/05_backward_engine", BACK_LINK) == \
        "Practise [05 · Backward: the engine](../05_backward_engine.ipynb)."


def test_other_pages_and_other_links_stay():
    assert book_links("glossary", CHAPTER_LINK) == CHAPTER_LINK
    assert book_links("05_backward_engine", BACK_LINK) == BACK_LINK  # not a link to the exercises
    assert book_links("_exercises/05_backward_engine", CHAPTER_LINK) == CHAPTER_LINK
