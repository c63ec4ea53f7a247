"""What only the course needs: notebook helpers (and, later, exercise checks and the grader)."""
from .notebook import show_source

__all__ = ["show_source"]
