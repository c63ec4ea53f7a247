"""Finds the class folder (on the grader's command line, through /proc) and the other runs' work
folders, copies a classmate's notebook into its own error message (the report), and empties the
classmates' notebooks and forges their observations."""
import glob
import os
import tempfile

reached, leaked = [], ""
folders = _folders_above() + glob.glob(os.path.join(tempfile.gettempdir(), "*glasstorch-grade-*"))
for folder in folders:
    if MARKER not in os.path.realpath(folder):
        continue  # (only ever the test's own files)
    for root, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            try:
                if name.endswith(".ipynb"):
                    with open(path) as notebook:
                        text = notebook.read()
                    if "classmate-secret-" in text:
                        leaked = text[text.index("classmate-secret-"):][:60]
                    with open(path, "w") as notebook:
                        notebook.write("{}")
                    reached.append(path)
                elif name.endswith(".jsonl"):
                    with open(path, "w") as observations:
                        observations.write("garbage\n")
                    reached.append(path)
            except OSError:
                pass
raise RuntimeError(f"reached {len(reached)} files of classmates; leaked: {leaked!r}")
