"""`python -m app` is the `sightline` command."""

import sys

from app.cli import main

sys.exit(main())
