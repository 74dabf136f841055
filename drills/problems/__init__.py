"""What cannot be declared in the manifest: one module per problem, named by its entry's `module`.

A problem module (see README.md beside this file) defines

    DIAGNOSES             the ids of the diagnoses it raises, most specific first
    STORE_LINE_DIAGNOSES  those of them that point at the entry point's global store line
    diagnose_outputs(problem, result)
                          named diagnoses from the pattern of wrong outputs: the `evidence` that the
                          problem's tests record on failing rows (keys declared in the manifest)
    probe_reference(entry, dims, inputs)
                          for a problem with technique checks: [(expected, atol), ...] per `out:`
                          argument of the check's probe, for the inputs given (numpy arrays, in the
                          order of the `in:` arguments): the judge's replay of the probed call on
                          inputs the learner's process never saw must agree with it
                          (drills/pipeline/oplog_replay.py)

and nothing else the core depends on. The core finds it through the manifest, never by number.
"""

from __future__ import annotations

import importlib
from types import ModuleType

REQUIRED = ("DIAGNOSES", "diagnose_outputs")


def module_for(problem) -> ModuleType | None:
    """The problem's module, or None when its entry names none (nothing undeclarable to do)."""
    if not problem.module:
        return None
    module = importlib.import_module(f"{__name__}.{problem.module}")
    missing = [name for name in REQUIRED if not hasattr(module, name)]
    if missing:
        raise ImportError(f"drills/problems/{problem.module}.py defines no {', '.join(missing)}")
    return module
