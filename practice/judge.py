#!/usr/bin/env python3
"""drills' judge. `python practice/judge.py 78` judges problem 78; `--help` lists the rest."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

if __name__ == "__main__":
    if sys.version_info < (3, 11):
        sys.exit("drills: needs Python 3.11 or newer (for tomllib); this is " + sys.version.split()[0])
    try:
        from drills.cli import main
    except ModuleNotFoundError as e:
        print(f"drills: the Python package '{e.name}' is missing: run `bash practice/setup.sh` "
              "(or pip install -r requirements.txt)", file=sys.stderr)
        sys.exit(2)
    sys.exit(main())
