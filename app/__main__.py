"""``python -m app``: the same as the ``unidesk`` command."""

import multiprocessing
import sys

from app.main import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # frozen (PyInstaller) builds start engine children through this
    sys.exit(main())
