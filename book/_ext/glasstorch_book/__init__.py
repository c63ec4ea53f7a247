"""Sphinx extensions of the glasstorch book (listed one by one in book/conf.py).

- ``chapter_map``: the ``{chapter-map}`` directive, the course map as a clickable picture;
- ``exercise_pages``: book/_exercises/, the exercise notebooks copied in at every build, not run;
- ``notebook_links``: chapter <-> exercises links, from JupyterLab's paths to the book's pages;
- ``run_notes``: the "Run this chapter" / "Work on this exercise" note at the top of those pages;
- ``source_pages``: a highlighted page per package file, and links to it from ``show_source``;
- ``editions``: the link from each page to the same page in the other language;
- ``pictures``: output pictures link to their own file, to see them at full size.
"""
