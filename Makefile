# glasstorch — the commands. Each target first runs tools/setup_env.py, which creates .venv,
# installs what the target needs and makes sure Graphviz's `dot` exists (fast when nothing changed).
#
#   make lab     JupyterLab on the book          make test    the whole test suite
#   make book    the HTML book in _build/html    make bench   the benchmarks
#   make exercises  exercises/ from solutions/   make grade   grade notebooks (yours: exercises/)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SETUP  := $(PYTHON) tools/setup_env.py

LAB_ARGS    ?=
BOOK_LANG   ?= en
PYTEST_ARGS ?=
TEST_JOBS   ?= 2
SPHINX_ARGS ?=
BENCH_ARGS  ?=
GRADE       ?= exercises
GRADE_ARGS  ?=
MOVES       ?=

# debugpy (inside ipykernel) warns on stderr about frozen modules; in a notebook that warning is an
# output nbval would compare.
export PYDEVD_DISABLE_FILE_VALIDATION := 1

# Jupyter refuses to run as root unless told to (containers, CI machines).
ALLOW_ROOT := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root,)

.DEFAULT_GOAL := help
.PHONY: help setup lab lab-zh book catalogs test bench exercises grade renumber clean distclean

help:
	@echo "glasstorch — PyTorch's internals, opened up"
	@echo
	@echo "  make lab        open the book in JupyterLab (extra options: LAB_ARGS='--port 8899')"
	@echo "  make lab-zh     the same in Chinese (or: make lab BOOK_LANG=zh_CN), 中文版"
	@echo "  make book       execute every chapter and build the HTML book into _build/html/, the Chinese"
	@echo "                  edition into _build/html/zh_CN/ (SPHINX_ARGS=...)"
	@echo "  make catalogs   update the Chinese edition's message catalogs (book/locales) after editing prose"
	@echo "  make test       run the tests and every notebook (extra options: PYTEST_ARGS='-k tensor';"
	@echo "                  TEST_JOBS=0 for one process, as --pdb needs)"
	@echo "  make bench      run the benchmarks (benchmarks/run.py; options: BENCH_ARGS=...)"
	@echo "  make exercises  write exercises/ from solutions/ (teachers, after editing a solution)"
	@echo "  make grade      grade your exercise notebooks (GRADE=folder-or-notebooks, GRADE_ARGS='--csv class.csv')"
	@echo "  make renumber   renumber chapters, every file and reference (MOVES='10:11 11:12', old:new)"
	@echo "  make setup      only create/update the environment in $(VENV)"
	@echo "  make clean      remove _build and caches (keeps $(VENV))"
	@echo "  make distclean  clean, and remove $(VENV) too"
	@echo
	@echo "Needs Python 3.10+ as '$(PYTHON)' (override: make test PYTHON=python3.12) and Graphviz's 'dot'."

setup:
	@$(SETUP) course

# BOOK_LANG=zh_CN: the Chinese notebooks, made in zh_CN/ from the English ones and the catalogs
# (tools/translate_notebooks.py; your exercise notebooks there are never overwritten), and the
# checks speaking Chinese (GLASSTORCH_LANG, glasstorch/course/i18n.py).
ifeq ($(BOOK_LANG),zh_CN)
lab:
	@$(SETUP) course book
	$(BIN)/python tools/translate_notebooks.py
	GLASSTORCH_LANG=zh_CN $(BIN)/jupyter lab --notebook-dir=. --LabApp.default_url=/lab/tree/zh_CN/book $(ALLOW_ROOT) $(LAB_ARGS)
else
lab:
	@$(SETUP) course
	$(BIN)/jupyter lab --notebook-dir=. --LabApp.default_url=/lab/tree/book $(ALLOW_ROOT) $(LAB_ARGS)
endif

lab-zh:
	@$(MAKE) --no-print-directory lab BOOK_LANG=zh_CN

# -E: read (and so execute) every chapter, even those unchanged since the last build: the package
# they import may have changed. -W --keep-going: every warning is an error, all reported in one run.
# Then the Chinese edition (issue 18) into _build/html/zh_CN, from the catalogs in book/locales: the
# same notebooks with the outputs the English build has just checked (not executed twice).
book:
	@$(SETUP) course book
	$(BIN)/python -m sphinx -b html -E -W --keep-going -d _build/doctrees book _build/html $(SPHINX_ARGS)
	$(BIN)/python -m sphinx -b html -E -W --keep-going -d _build/doctrees-zh_CN -D language=zh_CN \
		-D nb_execution_mode=off book _build/html/zh_CN $(SPHINX_ARGS)
	@echo
	@echo "The book: $(CURDIR)/_build/html/index.html (中文: $(CURDIR)/_build/html/zh_CN/index.html)"

# The Chinese edition's catalogs, after a change to the English prose: new messages added, changed
# ones marked fuzzy, every translation kept (tools/catalogs.py; `check` lists what is left to do).
catalogs:
	@$(SETUP) course book
	$(BIN)/python tools/catalogs.py update

# -n: TEST_JOBS pytest-xdist workers (TEST_JOBS=0: one process, for --pdb or -s); --dist loadfile
# keeps each file on one worker: a notebook's cells share one kernel, a module its fixtures.
test:
	@$(SETUP) course test
	$(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadfile $(PYTEST_ARGS)

bench:
	@$(SETUP) course
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)

exercises:
	@$(SETUP) course
	$(BIN)/python -m glasstorch.course.generate solutions exercises

# -I: the grader ignores PYTHON* variables and user site-packages. Each notebook runs in a sandbox
# (bubblewrap); only your own exercises/ are graded without one where it is missing (with a note).
grade:
	@$(SETUP) course
	$(BIN)/python -I -m glasstorch.course.grade $(if $(filter exercises exercises/,$(GRADE)),--sandbox auto,) $(GRADE) $(GRADE_ARGS)

# Every file of the moved chapters renamed, every reference rewritten (tools/renumber.py).
renumber:
	@$(SETUP) course
	$(BIN)/python tools/renumber.py $(MOVES)

clean:
	rm -rf _build book/_exercises .pytest_cache .hypothesis .jupyter_cache test-artifacts package/*.egg-info
	find . -path ./$(VENV) -prune -o \( -name __pycache__ -o -name .ipynb_checkpoints \) -type d -print0 \
		| xargs -0 rm -rf

distclean: clean
	rm -rf $(VENV)
