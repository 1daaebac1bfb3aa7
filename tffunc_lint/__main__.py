"""``python -m tffunc_lint`` runs the CLI."""

import sys

from .doors.cli import main

sys.exit(main())
