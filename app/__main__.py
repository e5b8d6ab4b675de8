"""``python -m app``: the same as the ``unidesk`` command."""

import sys

from app.main import main

sys.exit(main())
