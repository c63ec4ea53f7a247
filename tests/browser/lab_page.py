"""Driving one notebook in JupyterLab through the page, as a learner does: open it, wait for its
kernel, run cells, type into a cell, read what the outputs show.

Typing goes through the keyboard; running cells goes through JupyterLab's own commands (what the
Run menu and Shift+Enter call), and the notebook's state is read from JupyterLab's model via
`window.jupyterapp` (the server runs with --expose-app-in-browser).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import nbformat

from lab_server import LabServer

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

KERNEL_TIMEOUT_MS = 90_000  # the kernel's start on a busy 2-core machine

# Installed before any page script: finds the notebook panel of a path among Lab's main-area widgets.
FIND_PANEL = """
window.glasstorchPanel = (path) => {
    const app = window.jupyterapp;
    if (!app) return null;
    for (const widget of app.shell.widgets('main')) {
        if (widget.context && widget.context.path === path && widget.content && widget.content.model) return widget;
    }
    return null;
};
"""
KERNEL_IDLE = """(path) => {
    const panel = window.glasstorchPanel(path);
    const kernel = panel?.sessionContext?.session?.kernel;
    return !!kernel && kernel.status === 'idle' && panel.content.widgets.length > 0;
}"""
# Runs commands on the notebook and resolves once they have run (JupyterLab's promise resolves when
# the cells' executions are done, whether or not one of them raised).
RUN_COMMAND = """async ([path, command, cellIndex]) => {
    const panel = window.glasstorchPanel(path);
    window.jupyterapp.shell.activateById(panel.id);
    if (cellIndex !== null) panel.content.activeCellIndex = cellIndex;
    return await window.jupyterapp.commands.execute(command);
}"""
CELL_STATES = """(path) => {
    const cells = window.glasstorchPanel(path).content.model.cells;
    const states = [];
    for (let i = 0; i < cells.length; i++) {
        const cell = cells.get(i);
        states.push({type: cell.type, source: cell.sharedModel.getSource(),
                     executionCount: cell.type === 'code' ? cell.executionCount : null,
                     outputs: cell.type === 'code' ? cell.outputs.toJSON() : []});
    }
    return states;
}"""


def copy_without_outputs(notebook: Path, folder: Path) -> Path:
    """Copy ``notebook`` into ``folder`` with its outputs and counts cleared, so that everything the
    test sees later was produced by this run. The repository's file is not touched."""
    copy = nbformat.read(notebook, as_version=4)
    for cell in copy.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / notebook.name
    nbformat.write(copy, target)
    return target


class LabNotebook:
    """A notebook (a path relative to the server's root) open in a page of JupyterLab."""

    def __init__(self, page: "Page", server: LabServer, path: str) -> None:
        self.page, self.server, self.path = page, server, path

    def open(self) -> None:
        """Open the notebook in a workspace of its own, and wait until its kernel is idle."""
        self.page.add_init_script(FIND_PANEL)
        # A workspace per notebook: Lab would otherwise reopen what the last test left open.
        workspace = Path(self.path).stem.replace("_", "-")
        self.page.goto(self.server.url(f"lab/workspaces/{workspace}/tree/{self.path}"))
        self.wait_until_idle()

    def run(self, command: str, cell_index: int | None = None) -> None:
        """Run a notebook command (e.g. 'notebook:run-all-cells'), on cell ``cell_index`` if given."""
        self.page.evaluate(RUN_COMMAND, [self.path, command, cell_index])

    def cells(self) -> list[dict]:
        """Every cell as the model holds it: type, source, executionCount and outputs (nbformat JSON)."""
        return self.page.evaluate(CELL_STATES, self.path)

    def wait_until_idle(self) -> None:
        """Wait until the notebook's kernel has started and has nothing left to run."""
        self.page.wait_for_function(KERNEL_IDLE, arg=self.path, timeout=KERNEL_TIMEOUT_MS)

    def cell(self, index: int) -> "Locator":
        """The cell's element on the page (every cell is in the DOM; Lab only skips painting them)."""
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    def type_into(self, index: int, text: str) -> None:
        """Replace the source of cell ``index`` with ``text`` through the keyboard. insert_text types
        it as one input, so CodeMirror neither re-indents lines nor closes brackets on its own."""
        editor = self.cell(index).locator(".cm-content")
        editor.click()
        self.page.keyboard.press("ControlOrMeta+a")
        self.page.keyboard.insert_text(text)

    def screenshot(self, target: Path, centre: "Locator | None" = None) -> None:
        """A screenshot of the page, scrolled so that ``centre`` (if given) is in its middle."""
        if centre is not None:
            centre.evaluate("element => element.scrollIntoView({block: 'center'})")
        self.page.screenshot(path=str(target))


def error_outputs(cells: list[dict]) -> list[str]:
    """Each error and each stderr stream among the cells' outputs, as 'cell N: ...'."""
    found = []
    for index, cell in enumerate(cells):
        for output in cell["outputs"]:
            if output["output_type"] == "error":
                found.append(f"cell {index}: {output['ename']}: {output['evalue']}")
            elif output["output_type"] == "stream" and output["name"] == "stderr":
                text = output["text"] if isinstance(output["text"], str) else "".join(output["text"])
                found.append(f"cell {index} wrote to stderr: {text.strip()[:300]}")
    return found
