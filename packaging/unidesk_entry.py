"""The bundle's entry point: the same ``app.main.main`` that ``unidesk`` runs from source."""

import multiprocessing
import sys

from app.main import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # worker processes (document parsing) start the bundle again
    sys.exit(main())
