#!/usr/bin/env python3
"""drills' judge. `python practice/judge.py 78` judges problem 78; `--help` lists the rest."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from drills.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
