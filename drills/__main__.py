"""`python -m drills ...` is `python practice/judge.py ...` and the installed `drills` command."""

import sys

from .cli import main

sys.exit(main())
