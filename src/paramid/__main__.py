"""``python -m paramid``: the ``paramid`` command (:mod:`paramid.cli`)."""

import sys

from paramid.cli import main

if __name__ == "__main__":
    sys.exit(main())
