"""On the simulator, the performance section is a prediction for a named GPU: the time model of
sim/model (issue 14) run on the subject's variants at the problem's perf shapes, against the
reference's bound kernel predicted the same way. Same shape as perf.py's answer, plus
"predicted": {"gpu", "note"}; variants the model cannot speak for carry a reason and no number."""

from __future__ import annotations

import runpy

from .. import ROOT
from .build import build, subject_for
from .perf import parse_shape

VARIANTS = ROOT / "sim" / "model" / "variants.py"


def for_subject(problem, subject, gpu: str = "H200") -> dict:
    spec = problem.perf
    if not spec:
        return {}
    reference = subject_for(problem, problem.path("solution"), subject.backend)
    if reference.build_dir != subject.build_dir or reference.name != subject.name:
        outcome = build(reference)
        if not outcome.ok:
            return {"error": "the reference did not build: " + outcome.log[-500:]}
    model = runpy.run_path(str(VARIANTS))
    try:
        return model["predict"](subject.capi_library, reference.capi_library,
                                [parse_shape(s) for s in spec.shapes], list(spec.variants), spec.bound, gpu)
    except Exception as e:  # a prediction that fails must not fail the verdict
        return {"error": f"no prediction: {e}"[:800]}
