"""On the simulator, the performance section is a prediction for a named GPU: the time model of
sim/model (issue 14) run on the subject's variants at the problem's perf shapes, against the
reference's bound kernel predicted the same way. Same shape as perf.py's answer, plus
"predicted": {"gpu", "note"}; variants the model cannot speak for carry a reason and no number.

The model is validated for memory-bound kernels (benchmarks/h200-prediction.md); a problem timed in
FLOP/s (a GEMM) gets no prediction. A prediction is cached beside the build, keyed by the two libraries'
bytes and the perf spec, so judging an unchanged file again costs nothing."""

from __future__ import annotations

import hashlib
import json
import runpy

from .. import ROOT
from .build import build, subject_for

VARIANTS = ROOT / "sim" / "model" / "variants.py"


def for_subject(problem, subject, gpu: str = "H200") -> dict:
    spec = problem.perf
    if not spec or spec.unit != "bytes":
        return {}
    reference = subject_for(problem, problem.path("solution"), subject.backend)
    if reference.build_dir != subject.build_dir or reference.name != subject.name:
        outcome = build(reference)
        if not outcome.ok:
            return {"error": "the reference did not build: " + outcome.log[-500:]}
    cache = _cache_file(subject, reference, spec, gpu)
    try:
        return json.loads(cache.read_text())
    except (OSError, ValueError):
        pass
    from .perf import parse_shape  # here, not above: perf imports numpy, which a cached answer does not need
    model = runpy.run_path(str(VARIANTS))
    try:
        answer = model["predict"](subject.capi_library, reference.capi_library,
                                  [parse_shape(s) for s in spec.shapes], list(spec.variants), spec.bound, gpu)
    except Exception as e:  # a prediction that fails must not fail the verdict
        return {"error": f"no prediction: {e}"[:800]}
    try:
        for old in cache.parent.glob(f".predicted-{subject.name}-*.json"):  # one per subject: the last
            old.unlink(missing_ok=True)
        cache.write_text(json.dumps(answer))
    except OSError:
        pass
    return answer


def _cache_file(subject, reference, spec, gpu: str):
    h = hashlib.sha256(f"{gpu}|{spec.model_dump_json()}".encode())
    for lib in (subject.capi_library, reference.capi_library, VARIANTS):
        try:
            h.update(lib.read_bytes())
        except OSError:
            h.update(b"missing")
    for model_file in sorted(VARIANTS.parent.glob("*.py")):  # the model's code and constants
        h.update(model_file.read_bytes())
    return subject.build_dir / f".predicted-{subject.name}-{h.hexdigest()[:16]}.json"
