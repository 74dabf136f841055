"""drills: the judge behind practice/judge.py (catalog, build, run, diagnose, report, web, grade)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULT_VERSION = 1
