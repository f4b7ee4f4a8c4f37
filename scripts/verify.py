"""``python scripts/verify.py [options]``: ``paramid verify`` of this checkout.

The logic lives in :mod:`paramid.cli` (``paramid verify --help`` lists the options); this
entry point defaults ``--workflow`` to the checkout it belongs to, not the current directory.
"""

import sys
from pathlib import Path

from paramid.cli import copy_checkout, main, reference_files

REPO = Path(__file__).resolve().parents[1]
# tests/test_provenance.py loads these from this file
__all__ = ["copy_checkout", "reference_files"]

if __name__ == "__main__":
    sys.exit(main(["verify", "--workflow", str(REPO), *sys.argv[1:]]))
