"""``python -m scalargrad`` is the ``scalargrad`` command."""

import sys

from .cli import main

sys.exit(main())
