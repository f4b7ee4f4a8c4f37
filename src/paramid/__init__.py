"""paramid: reproducible robot parameter identification (library half of the workflow).

Pure functions over arrays; all file I/O lives in :mod:`paramid.io` and ``scripts/``.
"""

__version__ = "0.1.0"
