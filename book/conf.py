"""Sphinx configuration of the glasstorch book (built by `make book` into _build/html).

The book must build and display with no network: no CDN at build time or when reading it.
Math uses the MathJax copy shipped by sphinx-mathjax-offline; tests/test_book_offline.py checks
the built HTML references nothing remote.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))  # the book's own extensions

project = "glasstorch"
author = "the glasstorch authors"
copyright = "the glasstorch authors"
html_title = "glasstorch — PyTorch's internals, opened up"

extensions = [
    "myst_nb",                 # reads and executes the .ipynb chapters (and .md pages)
    "sphinx-mathjax-offline",  # copies MathJax 3 into _static/mathjax and points mathjax_path at it
    "sphinx_copybutton",       # a copy button on code cells (its JS and CSS are copied into _static)
    # book/_ext/glasstorch_book (each module's docstring says what it adds):
    "glasstorch_book.chapter_map",     # {chapter-map}: the course map on the landing page, with links
    "glasstorch_book.exercise_pages",  # exercises/*.ipynb -> book/_exercises/ at every build, not run
    "glasstorch_book.notebook_links",  # ../exercises/NN_x.ipynb links -> the book's exercise pages
    "glasstorch_book.run_notes",       # "Run this chapter" / "Work on this exercise" under each title
    "glasstorch_book.source_pages",    # a page per package file; show_source headers link to it
    "glasstorch_book.editions",        # a link on every page to its twin in the other language
    "glasstorch_book.pictures",        # output pictures open at full size when clicked
]

# Math as JupyterLab writes it: $...$, $$...$$ and bare \begin{align} blocks.
myst_enable_extensions = ["dollarmath", "amsmath"]

# Two editions from one source (issue 18): English, and Chinese from the gettext catalogs in
# book/locales/zh_CN/LC_MESSAGES/, one per page (`make catalogs` extracts and updates them;
# `make book` builds the Chinese edition into _build/html/zh_CN with -D language=zh_CN).
language = "en"
locale_dirs = ["locales/"]
gettext_compact = False   # a catalog per page, named after it: 04_computational_graph.po
gettext_location = False  # no "#: file:line" comments: they would change with every edit above
gettext_uuid = False

root_doc = "index"
exclude_patterns = ["_build", "_ext", "locales", "**.ipynb_checkpoints", "exercises", "Thumbs.db", ".DS_Store"]

# Every chapter is executed afresh during the build, so the book shows what the code does today.
nb_execution_mode = "force"
nb_execution_raise_on_error = True   # a failing cell fails the build
nb_execution_show_tb = True          # ...and prints the traceback
nb_execution_timeout = 600           # seconds per cell: generous for 2-core machines
nb_execution_excludepatterns = ["_build/*", "**/.ipynb_checkpoints/*"]
nb_execution_in_temp = False         # run in book/ so chapters can read files next to them
nb_merge_streams = True              # one stdout block per cell, as in JupyterLab

# Where the MathJax copy lives, relative to _static (sphinx-mathjax-offline sets the same value;
# stating it here keeps the choice visible). MathJax 3 loads its fonts and extensions next to it.
mathjax_path = "mathjax/tex-chtml.js"

html_theme = "sphinx_book_theme"
html_theme_options = {
    "show_toc_level": 2,
    "use_download_button": True,
    "home_page_in_toc": False,  # the sidebar title already links home
}
html_show_sourcelink = False
# Light or dark as the reader's system says, until they pick one with the theme switch. (Without a
# default the theme logs "Got invalid theme mode" as a console error on a reader's first visit.)
html_context = {"default_mode": "auto"}
html_static_path = ["_static"]
# A page without an icon makes the browser ask for /favicon.ico: a failed request on every page.
html_favicon = "_static/favicon.svg"
html_css_files = ["glasstorch.css"]  # pictures: fit the column, readable in the dark theme, zoom links

# Copy buttons on code, not on outputs; what is copied leaves out prompts and line numbers.
copybutton_selector = 'div[class*="highlight-"]:not(.output) > div.highlight > pre'
copybutton_exclude = ".linenos, .gp, .go"  # line numbers; prompt and output of console sessions
copybutton_prompt_text = r">>> |\.\.\. |\$ |In \[\d*\]: | {2,5}\.\.\.: "
copybutton_prompt_is_regexp = True  # (a block without prompts is copied whole)

# Progress bars (tqdm.auto) are ipywidgets in Jupyter. Their JavaScript (require.js and the widget
# manager) would come from a CDN, and the book must work offline: load none. The bars then show
# as their text, which is what a reader of a finished run needs.
nb_ipywidgets_js = {}
