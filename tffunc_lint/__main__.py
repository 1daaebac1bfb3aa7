"""``python -m tffunc_lint`` runs the CLI."""

from .doors.cli import run

run()
