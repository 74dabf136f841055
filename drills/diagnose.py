"""Named diagnoses from evidence: the build log, the simulator's checks and counters, the pattern of
wrong elements across shapes. Never from reading the learner's source text.

Stable ids (the result object's `diagnoses[].id`; golden cases in tests/golden/<chapter>/<id>/):
  compile-error, missing-entry-point, host-deref-device-pointer, timeout, deadlock, unsupported
      (these make the status `error`: the program did not build or did not finish);
  missing-barrier, bounds-swapped, block-index-not-swapped, copy-not-transpose, out-of-bounds,
  output-not-written, barrier-divergence, launch-configuration (a wrong answer or a faulting kernel);
  no-shared-memory, uncoalesced-store, bank-conflicts (from failed technique checks).
"""

from __future__ import annotations

import re

from .catalog import Problem
from .result import Result, error, msg

# The program did not build or did not finish: status `error`, never a wrong answer.
ERROR_IDS = frozenset({"compile-error", "missing-entry-point", "host-deref-device-pointer", "timeout",
                       "deadlock", "unsupported"})
# Most specific first: the first diagnosis leads the verdict.
ORDER = ("compile-error", "missing-entry-point", "host-deref-device-pointer", "timeout", "deadlock",
         "unsupported", "missing-barrier", "bounds-swapped", "block-index-not-swapped", "copy-not-transpose",
         "out-of-bounds", "output-not-written", "barrier-divergence", "launch-configuration", "no-shared-memory",
         "uncoalesced-store", "bank-conflicts")


def build_failure(problem: Problem, shown: str, outcome) -> Result:
    log = outcome.log[-8000:]
    if outcome.stage == "configure":
        return error(problem.number, "CMake 配置失败（见日志）。检查 CUDA Toolkit 与 CMake 的安装：`python practice/judge.py doctor`。",
                     "CMake configuration failed (see the log). Check the CUDA Toolkit and CMake: `python practice/judge.py doctor`.",
                     shown, log)
    if outcome.missing:
        names = ", ".join(outcome.missing)
        return error(problem.number,
                     f"{shown} 没有定义题目要求的函数：{names}。文件必须在全局命名空间里定义它们，签名与题目一致。",
                     f"{shown} does not define the contract's function(s): {names}. Define them in the global namespace with the problem's signatures.",
                     shown, log, diagnosis="missing-entry-point")
    r = error(problem.number, "", "", shown, log)
    if outcome.errors:
        line, first = outcome.errors[0]
        more = "".join(f"\n  {shown}:{l}: {m}" for l, m in outcome.errors[1:])
        r.message = msg(f"编译错误：{shown} 第 {line} 行：{first}", f"Compile error: {shown} line {line}: {first}")
        r.diagnose("compile-error", f"编译错误，第 {line} 行：{first}{more}", f"Compile error at line {line}: {first}{more}",
                   shown, line)
    else:
        r.message = msg("编译失败（见日志）。", "The build failed (see the log).")
        r.diagnose("compile-error", "编译失败，错误不在你的文件里，见日志。", "The build failed outside your file; see the log.", shown)
    return r


def from_runs(problem: Problem, result: Result, runs: list) -> None:
    for run in runs:
        for event in run.sim_events:
            _from_sim_event(result, event)
        if run.timed_out:
            result.diagnose("timeout", "kernel 没有在时限内结束：检查循环的终止条件和 __syncthreads() 是否被所有线程执行到。",
                            "The kernel did not finish in time: check loop bounds and that every thread reaches __syncthreads().")
    _from_wrong_outputs(result)
    order(result)


def order(result: Result) -> None:
    rank = {id: i for i, id in enumerate(ORDER)}
    result.diagnoses.sort(key=lambda d: rank.get(d["id"], len(ORDER)))


def _shown(result: Result, file: str) -> str:
    """The learner's file as the result names it (the simulator reports absolute paths)."""
    if file and result.file and (file == result.file or file.endswith("/" + result.file)):
        return result.file
    return file


def _where(e: dict) -> str:
    b, t = e.get("block", [0, 0, 0]), e.get("thread", [0, 0, 0])
    return f"block ({b[0]},{b[1]},{b[2]}) thread ({t[0]},{t[1]},{t[2]})"


def _from_sim_event(result: Result, event: dict) -> None:
    kind_of_event = event.get("event")
    if kind_of_event == "host-deref-device-pointer":
        where = event.get("allocation") or event.get("address", "?")
        result.diagnose("host-deref-device-pointer",
                        f"主机代码读写了设备内存（{where}）：设备指针只能在 kernel 里或通过 cudaMemcpy 访问。",
                        f"Host code dereferenced device memory ({where}): use device pointers only in kernels or through cudaMemcpy.")
        return
    if kind_of_event == "unsupported":
        what = event.get("what", "")
        result.diagnose("unsupported", f"模拟器不支持：{what}。这不是你的错误；请在 GPU 上判题，或报告给作者。",
                        f"The simulator does not support {what}. This is not your mistake; judge on a GPU, or report it.")
        return
    for e in event.get("errors", []) if kind_of_event == "launch" else []:
        _from_launch_error(result, e)


def _from_launch_error(result: Result, e: dict) -> None:
    file, line = _shown(result, e.get("file", "") or ""), int(e.get("line", 0) or 0)
    kind = e.get("kind", "")
    where = _where(e)
    text = e.get("message", "")
    if kind in ("out-of-bounds", "misaligned"):
        op = re.search(r"\b(global|shared|local) (load|store)\b", text)
        space, verb = (op.group(1), op.group(2)) if op else ("global", "")
        size = re.search(r"\((\d+) bytes\)", e.get("allocation", ""))
        offset = int(e.get("offset", 0) or 0)
        # Which array: the contract's kernels load only from their input and store only to their output.
        array_zh = {"store": "输出数组（写）", "load": "输入数组（读）"}.get(verb, "数组")
        array_en = {"store": "the output array (a store)", "load": "the input array (a load)"}.get(verb, "an array")
        if size:
            floats = int(size.group(1)) // 4
            index_zh = f"下标 {offset // 4}（该数组只有 {floats} 个 float，合法下标 0..{floats - 1}）"
            index_en = f"index {offset // 4} (the array holds {floats} floats: valid indices 0..{floats - 1})"
        else:
            index_zh, index_en = f"字节偏移 {offset}", f"byte offset {offset}"
        if kind == "misaligned":
            result.diagnose("out-of-bounds", f"第 {line} 行未对齐访问 {array_zh}：{index_zh}，{where}。",
                            f"Line {line}: misaligned {space} access to {array_en}, {index_en}, by {where}.", file, line)
        else:
            result.diagnose("out-of-bounds",
                            f"第 {line} 行越界访问 {array_zh}：{index_zh}，{where}。检查这一行的边界条件（行 < 行数，列 < 列数）。",
                            f"Line {line}: out-of-bounds access to {array_en} at {index_en}, by {where}. Check this line's bounds (row < rows, column < columns).",
                            file, line)
    elif kind == "shared-race":
        detail = e.get("detail", "")
        result.diagnose("missing-barrier",
                        f"共享内存竞争（第 {line} 行）：{where} 读到了别的 warp 写入的 tile 元素，两次访问之间没有 __syncthreads()。"
                        f"在阶段 1 写完 tile 之后、阶段 2 读 tile 之前加 __syncthreads()。（{detail}）",
                        f"Shared-memory race at line {line}: {where} read a tile element another warp wrote, with no __syncthreads() "
                        f"between. Add __syncthreads() after stage 1 writes the tile and before stage 2 reads it. ({detail})",
                        file, line)
    elif kind == "watchdog":
        result.diagnose("timeout", f"kernel 没有结束（第 {line} 行附近，{where}）：检查循环的步长和终止条件。",
                        f"The kernel never finished (near line {line}, {where}): check the loop's step and exit condition.",
                        file, line)
    elif kind == "deadlock":
        result.diagnose("deadlock", f"kernel 死锁（第 {line} 行）：{text}", f"The kernel deadlocked at line {line}: {text}", file, line)
    elif kind == "barrier-divergence":
        result.diagnose("barrier-divergence",
                        f"第 {line} 行：只有部分线程到达 __syncthreads()。不要把 __syncthreads() 放进 if 里。",
                        f"Line {line}: only some threads reach __syncthreads(). Do not put __syncthreads() inside an if.",
                        file, line)
    else:
        result.diagnose(kind or "simulator-error", f"第 {line} 行：{text}", f"Line {line}: {text}", file, line)


# ---- the pattern of wrong elements (evidence recorded by the GoogleTest file) ----

def _int(ev: dict, key: str) -> int:
    try:
        return int(ev.get(key, 0))
    except (TypeError, ValueError):
        return 0


def _from_wrong_outputs(result: Result) -> None:
    by_variant: dict[str, list] = {}
    for t in result.tests:
        if t.get("variant") and t.get("shape"):
            by_variant.setdefault(t["variant"], []).append(t)
    # The problem's own variant first: its diagnosis is the one the learner needs.
    for variant in sorted(by_variant, key=lambda v: (v != "tiled", v)):
        if _diagnose_variant(result, variant, by_variant[variant]):
            result.diagnoses[-1]["entry"] = f"transpose_{variant}"
            return


def _diagnose_variant(result: Result, variant: str, tests: list) -> bool:
    failed = [t for t in tests if t["status"] == "fail"]
    if not failed:
        return False
    with_evidence = [t for t in failed if "wrong" in t.get("evidence", {})]
    ev = [t["evidence"] for t in with_evidence]
    written_wrong = sum(_int(e, "wrong") - _int(e, "unwritten") for e in ev)
    fn = f"transpose_{variant}"

    if len(with_evidence) == len(failed) and all(
            _int(e, "unwritten") == t["shape"][0] * t["shape"][1] for t, e in zip(with_evidence, ev)):
        result.diagnose("output-not-written",
                        f"{fn} 一个元素也没有写：y 仍然全是测试预先填入的 NaN。kernel 还是 TODO 吗？或者 kernel 根本没有启动？",
                        f"{fn} wrote no element at all: y still holds the NaN the test filled it with. Is the kernel still "
                        "a TODO, or was it never launched?")
        return True

    if any(e.get("output_is_input_copied") == "1" for e in ev):
        result.diagnose("copy-not-transpose",
                        f"{fn} 的输出与输入逐元素相同：数据被原样拷贝，没有转置。阶段 2 应按列读 tile（tile[threadIdx.x][threadIdx.y + j]），"
                        "并把它写到 y 中交换了块坐标的位置。",
                        f"The output of {fn} equals its input element for element: it was copied, not transposed. Stage 2 must read "
                        "the tile down a column (tile[threadIdx.x][threadIdx.y + j]) and write it to the swapped block position of y.")
        return True
    untransposed = sum(_int(e, "wrong_matching_untransposed_tiles") for e in ev)
    if written_wrong > 0 and untransposed >= 0.9 * written_wrong:
        result.diagnose("copy-not-transpose",
                        f"{fn}：每个 tile 都放到了正确的位置，但 tile 内部没有转置（按行拷贝）。阶段 2 应按列读 tile："
                        "tile[threadIdx.x][threadIdx.y + j]。",
                        f"{fn}: every tile lands in the right place, but its contents were copied, not transposed. Stage 2 "
                        "must read the tile down a column: tile[threadIdx.x][threadIdx.y + j].")
        return True
    unswapped = sum(_int(e, "wrong_matching_unswapped_tiles") for e in ev)
    if written_wrong > 0 and unswapped >= 0.9 * written_wrong:
        result.diagnose("block-index-not-swapped",
                        f"{fn}：每个 tile 内部转置正确，但被写回了块自己的位置。x 的第 (by, bx) 块是 y 的第 (bx, by) 块："
                        "阶段 2 里 blockIdx.x 和 blockIdx.y 要对调（yc 用 blockIdx.y，yr 用 blockIdx.x）。",
                        f"{fn}: each tile is transposed correctly but written back at its own block position. Tile (by, bx) of x "
                        "is tile (bx, by) of y: swap blockIdx.x and blockIdx.y in stage 2 (yc from blockIdx.y, yr from blockIdx.x).")
        return True
    if _bounds_swapped(tests, failed, with_evidence):
        shapes = ", ".join(f"{t['shape'][0]}x{t['shape'][1]}" for t in failed[:4])
        result.diagnose("bounds-swapped",
                        f"{fn}：方阵全部正确，M≠N 的形状出错（{shapes}），错的元素在 y 的前 min(M,N)×min(M,N) 方块之外："
                        "阶段 2 的边界用反了。y 是 N×M：行 < N，列 < M。",
                        f"{fn}: square shapes pass, shapes with M != N fail ({shapes}), and the wrong elements lie outside y's "
                        "leading min(M,N) square: stage 2 checks its bounds the wrong way round. y is N x M: row < N, column < M.")
        return True
    return False


def _bounds_swapped(tests: list, failed: list, with_evidence: list) -> bool:
    squares = [t for t in tests if t["shape"][0] == t["shape"][1] and t["status"] != "skip"]
    if not squares or any(t["status"] != "pass" for t in squares):
        return False
    if any(t["shape"][0] == t["shape"][1] for t in failed) or not with_evidence:
        return False
    for t in with_evidence:  # a faulting launch leaves no pattern; the others must show one
        e = t["evidence"]
        outside, wrong_out, wrong = (_int(e, "outside_square"), _int(e, "wrong_outside_square"), _int(e, "wrong"))
        if outside == 0 or wrong_out < 0.5 * outside or wrong_out < wrong - wrong_out:
            return False
    return True


# ---- failed technique checks (drills/technique.py) ----

# Output-pattern diagnoses that are about the second stage: its line is the entry's global store.
STORE_STAGE_IDS = ("bounds-swapped", "block-index-not-swapped", "copy-not-transpose")


def from_checks(result: Result) -> None:
    for d in result.diagnoses:
        if d["id"] in STORE_STAGE_IDS and not d.get("line"):
            stores = {(l["file"], l["line"]) for launch in result.counters if launch.get("entry") == d.get("entry")
                      for l in launch["lines"] if "global_st" in l["requests"]}
            if len(stores) == 1:
                d["file"], d["line"] = stores.pop()
    failed = {c.get("diagnosis"): c for c in result.checks if c["status"] == "fail" and c.get("diagnosis")}
    if "no-shared-memory" in failed:
        _no_shared_memory(result, failed["no-shared-memory"])
    elif "uncoalesced-store" in failed:
        _uncoalesced(result, failed["uncoalesced-store"])
    if "bank-conflicts" in failed:
        _bank_conflicts(result, failed["bank-conflicts"])
    order(result)


def _worst_store(result: Result, entry: str) -> dict | None:
    rows = [(l, launch) for launch in result.counters if launch.get("entry") == entry
            for l in launch["lines"] if "global_st" in l["requests"]]
    if not rows:
        return None
    line, _ = max(rows, key=lambda r: r[0]["per_request"]["global_st"] / max(r[0]["ideal"]["global_st"], 1e-9))
    return line


def _no_shared_memory(result: Result, check: dict) -> None:
    store = _worst_store(result, check["entry"])
    if store:
        s, i, n = store["per_request"]["global_st"], store["ideal"]["global_st"], store["line"]
        zh = f"第 {n} 行的写每个请求触及 {s:g} 个扇区（理想 {i:g}）"
        en = f"the store on line {n} touches {s:g} sectors per request (ideal {i:g})"
    else:
        zh = en = ""
        n = 0
    result.diagnose("no-shared-memory",
                    f"{check['entry']} 没有使用共享内存（没有执行任何共享内存指令）{('：' + zh) if zh else ''}。"
                    "先把 x 的一块按行读进 __shared__ tile，再按列从 tile 取、按行写 y。",
                    f"{check['entry']} does not use shared memory (no shared-memory instruction ran)"
                    f"{(': ' + en) if en else ''}. Stage the block through a __shared__ tile: read x row by row into it, then "
                    "read it down a column and write y row by row.",
                    store["file"] if store else "", n)


def _uncoalesced(result: Result, check: dict) -> None:
    bad = check.get("lines") or []
    rows = [r for r in bad if r["op"] == "global_st"] or bad
    if not rows:
        return
    w = rows[0]
    result.diagnose("uncoalesced-store",
                    f"第 {w['line']} 行的全局写没有合并：每个请求触及 {w['per_request']:g} 个 32 字节扇区，理想 {w['ideal']:g}。"
                    "一个 warp 的 32 个线程应写 y 的同一行里相邻的元素：threadIdx.x 对应 y 的列。",
                    f"The global store on line {w['line']} is not coalesced: {w['per_request']:g} 32-byte sectors per request, "
                    f"ideal {w['ideal']:g}. The 32 threads of a warp should write neighbouring elements of one row of y: "
                    "threadIdx.x must index y's column.",
                    w["file"], w["line"])


def _bank_conflicts(result: Result, check: dict) -> None:
    rows = check.get("lines") or []
    if not rows:
        return
    w = rows[0]
    ways = w["per_request"] / max(w["ideal"], 1e-9)
    launch, line = _line_of(result, w)
    stride, wrong_dimension = _tile_evidence(launch, line, w["op"])
    kind_zh = "读" if w["op"].endswith("ld") else "写"
    kind_en = "read" if w["op"].endswith("ld") else "write"
    stride_zh = f"同一 warp 的相邻线程相隔 {stride} 字节（{stride // 4} 个字，正好是 32 的倍数），全部落在同一个 bank。" if stride else ""
    stride_en = (f"Neighbouring lanes are {stride} bytes ({stride // 4} words, a multiple of 32) apart, so they all hit "
                 "one bank. ") if stride else ""
    if wrong_dimension:
        fix_zh = ("tile 多出的是一行而不是一列（填充加在了错误的维度，例如 [33][32]）：填充要加在列上，声明 [32][33]，"
                  "让每一行错开一个 bank。")
        fix_en = ("The tile is padded with an extra row instead of an extra column (padding in the wrong dimension, "
                  "e.g. [33][32]): pad the columns, [32][33], so that each row starts one bank later.")
    else:
        fix_zh = "给 tile 加一列填充（[32][33]），或用 XOR 重排列下标。"
        fix_en = "Pad the tile with one extra column ([32][33]), or swizzle the column index with XOR."
    result.diagnose("bank-conflicts",
                    f"第 {w['line']} 行的共享内存{kind_zh}有 {ways:g} 路 bank 冲突：每个请求 {w['per_request']:g} 个 wavefront，"
                    f"理想 {w['ideal']:g}。{stride_zh}{fix_zh}",
                    f"Line {w['line']}: a {ways:g}-way bank conflict on the shared-memory {kind_en}: {w['per_request']:g} "
                    f"wavefronts per request, ideal {w['ideal']:g}. {stride_en}{fix_en}",
                    w["file"], w["line"])


def _line_of(result: Result, row: dict):
    for launch in result.counters:
        if launch.get("kernel") != row.get("kernel"):
            continue
        for line in launch["lines"]:
            if line["line"] == row["line"] and line["file"] == row["file"]:
                return launch, line
    return None, None


def _tile_evidence(launch, line, op: str) -> tuple[int, bool]:
    """(lane stride in bytes, padding in the wrong dimension) from the conflicted line's warp sample
    and the kernel's static shared memory: a column read whose lanes are a multiple of 32 words
    apart, in a tile holding whole extra rows of that pitch, was padded by rows, not by columns."""
    sample = (line or {}).get("sample") or {}
    if f"{sample.get('space')}_{sample.get('op')}" != op:
        return 0, False
    mask = int(sample.get("active_mask", 0))
    lanes = [i for i in range(32) if mask >> i & 1]
    addr = sample.get("address", [])
    if len(lanes) < 2 or max(lanes) >= len(addr):
        return 0, False
    strides = {(addr[b] - addr[a]) // (b - a) for a, b in zip(lanes, lanes[1:]) if (addr[b] - addr[a]) % (b - a) == 0}
    if len(strides) != 1:
        return 0, False
    stride = strides.pop()
    if stride <= 0 or stride % 128:
        return stride if stride > 0 else 0, False
    shared = int((launch or {}).get("static_shared_bytes") or 0)
    rows_touched = len(lanes)
    extra = shared - rows_touched * stride
    return stride, extra > 0 and extra % stride == 0 and extra < rows_touched * stride
