"""Named diagnoses from evidence: the build log, the simulator's checks and counters, the pattern of
wrong elements across shapes. Never from reading the learner's source text.

Stable ids (the result object's `diagnoses[].id`; golden cases in tests/golden/<chapter>/<id>/):
  compile-error, missing-entry-point, host-deref-device-pointer, timeout, deadlock, unsupported
      (these make the status `error`: the program did not build or did not finish);
  from the simulator's errors: wrong-shuffle-mask (sync-mask), barrier-in-divergent-branch
      (barrier-divergence), missing-barrier (shared-race), vec4-tail-overrun (a float4 or group of
      four reading past the array's end), misaligned-vector-access, out-of-bounds;
  from the pattern of wrong outputs: (78) bounds-swapped, block-index-not-swapped,
      copy-not-transpose, output-not-written; (71) tail-not-written, written-past-end,
      output-not-written; (77) out-not-zeroed, result-is-nan;
  from failed technique checks (the manifest's `diagnosis`): no-shared-memory, uncoalesced-store,
      uncoalesced-load, uncoalesced-access, no-vector-loads, bank-conflicts.

Wording that depends on the problem (C3's tiles and [32][33] mean nothing in a vector add) lives in
one table, ADVICE, keyed by (id, problem number); the facts (line, index, thread, ways) are computed.
"""

from __future__ import annotations

import math
import re

from . import ptxloc
from .catalog import Problem
from .result import Result, error, msg

# The program did not build or did not finish: status `error`, never a wrong answer.
ERROR_IDS = frozenset({"compile-error", "missing-entry-point", "host-deref-device-pointer", "timeout",
                       "deadlock", "unsupported"})
# Most specific first: the first diagnosis leads the verdict.
ORDER = ("compile-error", "missing-entry-point", "host-deref-device-pointer", "timeout", "deadlock",
         "unsupported", "wrong-shuffle-mask", "barrier-in-divergent-branch", "missing-barrier", "bounds-swapped",
         "block-index-not-swapped", "copy-not-transpose", "vec4-tail-overrun", "misaligned-vector-access",
         "out-of-bounds", "written-past-end", "tail-not-written", "out-not-zeroed", "result-is-nan",
         "output-not-written", "launch-configuration", "no-shared-memory", "no-vector-loads", "uncoalesced-store",
         "uncoalesced-load", "uncoalesced-access", "bank-conflicts")

# ---- per-problem wording: (id, problem) -> (zh, en) advice; (id, None) is the default ----

ADVICE = {
    ("out-of-bounds", 78): ("检查这一行的边界条件（行 < 行数，列 < 列数）。",
                            "Check this line's bounds (row < rows, column < columns)."),
    ("out-of-bounds", 71): ("最后一个 block 里有下标超过 n 的线程：用 if (i < n) 挡住它们。",
                            "The last block has threads whose index is past n: guard them with if (i < n)."),
    ("out-of-bounds", 77): ("读 x 的循环条件应是 i < n；partials 每个 block 只有一个槽位。",
                            "The loop over x must stop at i < n; partials has one slot per block."),
    ("out-of-bounds", None): ("检查这一行的下标与边界条件。", "Check this line's index and its bounds."),
    ("vec4-tail-overrun", 71): (
        "float4 只能覆盖前 4*(n/4) 个元素：向量循环用 i < n / 4，最后 n % 4 个元素由标量尾巴逐个相加。",
        "float4 may cover only the first 4*(n/4) elements: run the vector part for i < n / 4 and add the last "
        "n % 4 elements one by one in a scalar tail."),
    ("vec4-tail-overrun", 77): (
        "按 4 个一组（float4）读只能读到 4*(n/4)：组数用 n / 4（向下取整），最后 n % 4 个元素用单独的标量循环加上。",
        "Reading in groups of four (float4) may only go up to 4*(n/4): use n / 4 groups (rounded down) and add "
        "the last n % 4 elements in a separate scalar loop."),
    ("vec4-tail-overrun", None): ("向量访问只能覆盖完整的 4 个元素；最后不足 4 个的元素用标量访问。",
                                  "A vector access may only cover whole groups of four; access the last few elements "
                                  "one at a time."),
    ("misaligned-vector-access", 71): (
        "float4 要求地址是 16 字节的倍数。a、b、c 偏移相同时，先用标量处理开头 0-3 个元素（head）把指针对齐，"
        "再用 float4；三者偏移不同时改用标量 kernel。",
        "A float4 needs a 16-byte-aligned address. When a, b and c are the same number of floats past a boundary, "
        "add the first 0-3 elements (the head) with scalars until the pointers are aligned, then use float4; when "
        "their offsets differ, use the scalar kernel."),
    ("misaligned-vector-access", 77): (
        "float4 要求地址是 16 字节的倍数：先用标量加上开头 0-3 个元素，让 x 对齐后再按 float4 读。",
        "A float4 needs a 16-byte-aligned address: add the first 0-3 elements with scalars until x is aligned, "
        "then read float4."),
    ("misaligned-vector-access", None): ("向量访问要求地址按其大小对齐：先用标量处理开头不对齐的元素。",
                                         "A vector access must be aligned to its size: handle the unaligned head with "
                                         "scalars first."),
    ("missing-barrier", 78): (
        "在阶段 1 写完 tile 之后、阶段 2 读 tile 之前加 __syncthreads()。",
        "Add __syncthreads() after stage 1 writes the tile and before stage 2 reads it."),
    ("missing-barrier", 77): (
        "各 warp 把部分和写进共享内存之后，要先 __syncthreads()（所有线程都执行到），再由 warp 0 去读。",
        "After the warps write their sums to shared memory, call __syncthreads() (reached by every thread) "
        "before warp 0 reads them."),
    ("missing-barrier", None): ("在写共享内存与另一个 warp 读它之间加 __syncthreads()。",
                                "Add __syncthreads() between the shared-memory write and another warp's read."),
    ("barrier-in-divergent-branch", 77): (
        "__syncthreads() 必须被 block 的每个线程执行到：把它移到 if (lane == 0) 之类的分支外面，"
        "写 warp_sums 的 if 结束之后再同步。",
        "Every thread of the block must reach __syncthreads(): move it out of branches such as if (lane == 0); "
        "synchronise after the if that writes warp_sums has closed."),
    ("barrier-in-divergent-branch", None): ("不要把 __syncthreads() 放进 if 里：block 的每个线程都必须执行到它。",
                                            "Do not put __syncthreads() inside an if: every thread of the block must "
                                            "reach it."),
    ("wrong-shuffle-mask", 77): (
        "__shfl_xor_sync(FULL_MASK, ...) 要求 32 个 lane 都执行到它。让整个 warp 0 调用 warp_sum，多余的 lane 带 0 参加"
        "（lane < BLOCK/32 ? warp_sums[lane] : 0），而不是只让部分 lane 进入分支。",
        "__shfl_xor_sync(FULL_MASK, ...) needs all 32 lanes to execute it. Let the whole of warp 0 call warp_sum, the "
        "extra lanes carrying 0 (lane < BLOCK/32 ? warp_sums[lane] : 0), instead of calling it from a branch that only "
        "some lanes enter."),
    ("wrong-shuffle-mask", None): ("shuffle 的 mask 只能列出真正执行到它的 lane：让整个 warp 一起调用，或用与分支一致的 mask。",
                                   "A shuffle's mask may name only lanes that execute it: call it from the whole warp, or "
                                   "pass a mask that matches the branch."),
    ("bank-conflicts", 78): ("给 tile 加一列填充（[32][33]），或用 XOR 重排列下标。",
                             "Pad the tile with one extra column ([32][33]), or swizzle the column index with XOR."),
    ("bank-conflicts", 77): (
        "这是交错寻址（s[2*d*t]）的代价：改成顺序寻址（s[t] += s[t + d]，d 从 blockDim/2 减半），或用 warp shuffle 做"
        "最后几步；填充在这里帮不上忙。",
        "This is the cost of interleaved addressing (s[2*d*t]): switch to sequential addressing (s[t] += s[t + d], "
        "d halving from blockDim/2), or use warp shuffles for the last steps; padding does not help here."),
    ("bank-conflicts", None): ("让同一 warp 的相邻线程访问相邻的 4 字节字。",
                               "Make neighbouring lanes of a warp access neighbouring 4-byte words."),
    ("uncoalesced-store", 78): ("一个 warp 的 32 个线程应写 y 的同一行里相邻的元素：threadIdx.x 对应 y 的列。",
                                "The 32 threads of a warp should write neighbouring elements of one row of y: "
                                "threadIdx.x must index y's column."),
    ("no-vector-loads", 71): (
        "把 a、b 当作 float4 数组读：reinterpret_cast<const float4*>(a)[i]，一条指令搬 16 字节，"
        "而不是在循环里读 4 个 float。",
        "Read a and b as float4 arrays: reinterpret_cast<const float4*>(a)[i] moves 16 bytes in one instruction, "
        "instead of four float loads in a loop."),
    ("no-vector-loads", None): ("用 float4（16 字节）读代替逐个 float 读。", "Load float4 (16 bytes) instead of one float at a time."),
    ("uncoalesced-access", 71): (
        "float4 kernel 里每个线程应一次读写一个 float4（reinterpret_cast<const float4*>(a)[i]），"
        "而不是逐个读 4*i+k：那样相邻线程相隔 16 字节。",
        "In the float4 kernel each thread should move one float4 at a time (reinterpret_cast<const float4*>(a)[i]), "
        "not the scalars 4*i+k one by one: that puts neighbouring threads 16 bytes apart."),
    ("uncoalesced-load", 77): (
        "相邻线程应读相邻的元素：网格跨步循环里线程 t 读 x[t]、x[t + stride]……（或整个 float4），"
        "而不是每个线程读自己连续的一段。",
        "Neighbouring threads should read neighbouring elements: in a grid-stride loop thread t reads x[t], "
        "x[t + stride], ... (or whole float4s), not a run of its own."),
    ("uncoalesced", None): ("一个 warp 的 32 个线程应访问相邻的元素。",
                            "The 32 threads of a warp should access neighbouring elements."),
}


def advice(result: Result, id: str) -> tuple[str, str]:
    """The problem's own advice for a diagnosis, else the default one."""
    return ADVICE.get((id, result.problem)) or ADVICE.get((id, None)) or ("", "")


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


def from_runs(problem: Problem, result: Result, runs: list, binaries=()) -> None:
    """binaries: the built test program and library, whose PTX line table traces an error inside an
    inlined header function back to the learner's line (drills/ptxloc.py)."""
    for run in runs:
        for event in run.sim_events:
            _from_sim_event(result, event, binaries)
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


def _from_sim_event(result: Result, event: dict, binaries=()) -> None:
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
        _from_launch_error(result, e, event, binaries)


def _learner_site(result: Result, e: dict, event: dict, binaries) -> tuple[str, int, list]:
    """(file, line, callers) in the learner's file for a simulator error. An error inside an inlined
    header function (e.g. a shuffle: sm_30_intrinsics.hpp) is traced back through the PTX's inlining
    chain to the innermost line of the learner's file; callers are the learner's lines further out."""
    file, line = _shown(result, e.get("file", "") or ""), int(e.get("line", 0) or 0)
    if not result.file or file == result.file:
        return file, line, []
    instr = re.search(r"\(`([^`]*)`\)\s*$", e.get("message", ""))
    chain = ptxloc.call_chain(binaries, event.get("mangled", ""), instr.group(1)) if instr else []
    mine = [ln for f, ln in chain if _shown(result, f) == result.file]
    if not mine:
        return file, line, []
    return result.file, mine[0], mine[1:]


def _from_launch_error(result: Result, e: dict, event: dict | None = None, binaries=()) -> None:
    file, line, callers = _learner_site(result, e, event or {}, binaries)
    kind = e.get("kind", "")
    where = _where(e)
    text = e.get("message", "")
    if kind in ("out-of-bounds", "misaligned"):
        _memory_error(result, e, kind, file, line, where)
    elif kind == "shared-race":
        detail = e.get("detail", "")
        what_zh, what_en = ("tile 元素", "a tile element") if result.problem == 78 else ("共享内存", "shared memory")
        fix_zh, fix_en = advice(result, "missing-barrier")
        result.diagnose("missing-barrier",
                        f"共享内存竞争（第 {line} 行）：{where} 访问的{what_zh}也被另一个 warp 访问（{detail}），"
                        f"其中一次是写，两次访问之间没有 __syncthreads()。{fix_zh}",
                        f"Shared-memory race at line {line}: {where} accessed {what_en} that another warp also accessed "
                        f"({detail}), one of them writing, with no __syncthreads() between. {fix_en}",
                        file, line)
    elif kind == "watchdog":
        result.diagnose("timeout", f"kernel 没有结束（第 {line} 行附近，{where}）：检查循环的步长和终止条件。",
                        f"The kernel never finished (near line {line}, {where}): check the loop's step and exit condition.",
                        file, line)
    elif kind == "deadlock":
        result.diagnose("deadlock", f"kernel 死锁（第 {line} 行）：{text}", f"The kernel deadlocked at line {line}: {text}", file, line)
    elif kind == "barrier-divergence":
        fix_zh, fix_en = advice(result, "barrier-in-divergent-branch")
        result.diagnose("barrier-in-divergent-branch",
                        f"第 {line} 行：只有部分线程到达 __syncthreads()（{where} 是其中之一），屏障在一个分支里。{fix_zh}",
                        f"Line {line}: only some threads reach __syncthreads() ({where} is one): the barrier sits in a "
                        f"divergent branch. {fix_en}",
                        file, line)
    elif kind == "sync-mask":
        _wrong_shuffle_mask(result, e, file, line, callers, where)
    else:
        result.diagnose(kind or "simulator-error", f"第 {line} 行：{text}", f"Line {line}: {text}", file, line)


def _wrong_shuffle_mask(result: Result, e: dict, file: str, line: int, callers: list, where: str) -> None:
    text = e.get("message", "")
    m = re.search(r"member mask (0x[0-9a-f]+).*?\((0x[0-9a-f]+)\); active (0x[0-9a-f]+)", text)
    mask, missing, active = m.groups() if m else ("?", "?", "?")
    fix_zh, fix_en = advice(result, "wrong-shuffle-mask")
    if file == result.file:
        via_zh = "".join(f"，由第 {c} 行调用" for c in callers[:2])
        via_en = "".join(f", called from line {c}" for c in callers[:2])
        at_zh, at_en = f"第 {line} 行的 shuffle{via_zh}", f"The shuffle on line {line}{via_en}"
    else:  # the inlining chain was not found: say where the simulator saw it, and that it is not the learner's line
        short = file.rsplit("/", 1)[-1]
        at_zh = f"一个 shuffle（模拟器只报出头文件位置 {short}:{line}，找不到你文件里的行）"
        at_en = f"A shuffle (the simulator names only the header line {short}:{line}; your file's line was not found)"
    result.diagnose("wrong-shuffle-mask",
                    f"{at_zh}：mask {mask} 要求这些 lane 参加，但只有 {active} 的 lane 执行到它（缺 {missing}），{where}。{fix_zh}",
                    f"{at_en}: its mask {mask} names lanes that do not execute it (missing {missing}; active {active}), "
                    f"{where}. {fix_en}",
                    file if file == result.file else "", line if file == result.file else 0)


def _memory_error(result: Result, e: dict, kind: str, file: str, line: int, where: str) -> None:
    text = e.get("message", "")
    op = re.search(r"\b(global|shared|local) (load|store)\b", text)
    space, verb = (op.group(1), op.group(2)) if op else ("global", "")
    width_m = re.search(r"\bof (\d+) bytes\b", text)
    width = int(width_m.group(1)) if width_m else 4
    size_m = re.search(r"\((\d+) bytes\)", e.get("allocation", ""))
    offset = int(e.get("offset", 0) or 0)
    # Which array: the contract's kernels load only from their input and store only to their output.
    array_zh = {"store": "输出数组（写）", "load": "输入数组（读）"}.get(verb, "数组")
    array_en = {"store": "the output array (a store)", "load": "the input array (a load)"}.get(verb, "an array")
    size = int(size_m.group(1)) if size_m else None
    if size is not None:
        floats = size // 4
        first, last = offset // 4, (offset + width - 1) // 4
        at_zh = f"下标 {first}..{last}" if width > 4 and last > first else f"下标 {first}"
        at_en = f"indices {first}..{last}" if width > 4 and last > first else f"index {first}"
        index_zh = f"{at_zh}（该数组只有 {floats} 个 float，合法下标 0..{floats - 1}）"
        index_en = f"{at_en} (the array holds {floats} float{'s' if floats != 1 else ''}: valid indices 0..{floats - 1})"
    else:
        index_zh, index_en = f"字节偏移 {offset}", f"byte offset {offset}"
    vector = width > 4
    if kind == "misaligned":
        if vector and space == "global":
            past = (int(e.get("address", 0) or 0) % 16) // 4
            fix_zh, fix_en = advice(result, "misaligned-vector-access")
            result.diagnose("misaligned-vector-access",
                            f"第 {line} 行的 {width} 字节向量访问（{array_zh}，{index_zh}）地址不是 {width} 的倍数："
                            f"它在 16 字节边界之后 {past} 个 float，{where}。{fix_zh}",
                            f"Line {line}: a {width}-byte vector access to {array_en} at {index_en} is not {width}-byte "
                            f"aligned: it starts {past} float(s) past a 16-byte boundary, by {where}. {fix_en}",
                            file, line)
        else:
            result.diagnose("out-of-bounds", f"第 {line} 行未对齐访问 {array_zh}：{index_zh}，{where}。",
                            f"Line {line}: misaligned {space} access to {array_en}, {index_en}, by {where}.", file, line)
        return
    # Past the end by less than one float4: the vector part (or a loop over groups of four) ran one
    # group too far instead of leaving the last n % 4 elements to a scalar tail.
    tail = (space == "global" and size is not None and offset + width > size and offset < size + 16
            and (vector or (result.problem == 77 and verb == "load" and offset >= size)))
    if tail:
        fix_zh, fix_en = advice(result, "vec4-tail-overrun")
        what_zh = f"{width} 字节的向量访问" if vector else "按 4 个一组的读"
        what_en = f"a {width}-byte vector access" if vector else "a read in groups of four"
        result.diagnose("vec4-tail-overrun",
                        f"第 {line} 行越过了数组末尾：{what_zh}触及{array_zh}的{index_zh}，{where}。{fix_zh}",
                        f"Line {line} runs past the end of the array: {what_en} touches {array_en} at {index_en}, "
                        f"by {where}. {fix_en}",
                        file, line)
        return
    fix_zh, fix_en = advice(result, "out-of-bounds")
    result.diagnose("out-of-bounds",
                    f"第 {line} 行越界访问 {array_zh}：{index_zh}，{where}。{fix_zh}",
                    f"Line {line}: out-of-bounds access to {array_en} at {index_en}, by {where}. {fix_en}",
                    file, line)


# ---- the pattern of wrong elements (evidence recorded by the GoogleTest file) ----

def _int(ev: dict, key: str) -> int:
    try:
        return int(ev.get(key, 0))
    except (TypeError, ValueError):
        return 0


def _from_wrong_outputs(result: Result) -> None:
    if result.problem == 71:
        _vector_add_outputs(result)
        return
    if result.problem == 77:
        _reduction_outputs(result)
        return
    if result.problem != 78:  # the patterns below are C3's tiles; other problems have their own
        return
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


# ---- C1 (71): which elements of c are wrong ----

C1_ENTRIES = {"one_per_thread": "vector_add", "vec4": "vector_add_vec4", "grid_stride": "vector_add_grid_stride",
              "fast": "vector_add_fast"}


def _by_entry(result: Result, entries: dict) -> dict:
    """{entry point: its gtest rows}, in the order of `entries`; `_offsetK` variants join their base."""
    out: dict[str, list] = {}
    for t in result.tests:
        base = re.sub(r"(_positive)?(_offset\d+)?$", "", t.get("variant") or "")
        if base in entries and t.get("shape"):
            out.setdefault(entries[base], []).append(t)
    return {e: out[e] for e in entries.values() if e in out}


def _vector_add_outputs(result: Result) -> None:
    for fn, tests in _by_entry(result, C1_ENTRIES).items():
        failed = [t for t in tests if t["status"] == "fail"]
        ev = [(t["shape"][0] * t["shape"][1], t["evidence"]) for t in failed if "wrong" in t.get("evidence", {})]
        if not failed or not ev:
            continue
        past = [(n, _int(e, "written_past_end")) for n, e in ev if _int(e, "written_past_end") > 0]
        if past:
            n, k = past[0]
            fix_zh, fix_en = advice(result, "vec4-tail-overrun")
            result.diagnose("written-past-end",
                            f"{fn} 写到了 c 的末尾之后：n = {n} 时 c[n-1] 后面的 {k} 个保护元素被改写了（测试在那里放了 NaN）。{fix_zh}",
                            f"{fn} wrote past the end of c: with n = {n}, {k} of the guard floats after c[n - 1] changed "
                            f"(the test put NaN there). {fix_en}")
            result.diagnoses[-1]["entry"] = fn
            return
        complete = len(ev) == len(failed)  # every failure left a pattern (none faulted)
        if complete and all(_int(e, "unwritten") == n for n, e in ev):
            result.diagnose("output-not-written",
                            f"{fn} 一个元素也没有写：c 仍然全是测试预先填入的 NaN。kernel 还是 TODO 吗？或者 kernel 根本没有启动？",
                            f"{fn} wrote no element at all: c still holds the NaN the test filled it with. Is the kernel "
                            "still a TODO, or was it never launched?")
            result.diagnoses[-1]["entry"] = fn
            return
        tail_only = all(1 <= _int(e, "wrong") <= 3 and _int(e, "unwritten") == _int(e, "wrong")
                        and _int(e, "last_wrong") == n - 1 and _int(e, "first_wrong") >= n - 3 for n, e in ev)
        if complete and tail_only and any(n > 4 for n, _ in ev):
            aligned = {t["shape"][0] * t["shape"][1] for t in failed if "_offset" not in t["variant"]}
            sizes = ", ".join(str(n) for n in sorted(aligned or {n for n, _ in ev})[:5])
            result.diagnose("tail-not-written",
                            f"{fn} 只漏了最后几个元素：每个失败的长度（n = {sizes} ...）都只有末尾 1-3 个元素没被写（仍是 NaN），"
                            "正是 float4 覆盖不到的 n % 4 个。加上标量尾巴：全局下标 i < n % 4 的线程各加一个，"
                            "j = 4 * (n / 4) + i，c[j] = a[j] + b[j]。",
                            f"{fn} misses only the last few elements: every failing length (n = {sizes} ...) has just its "
                            "last 1-3 elements unwritten (still NaN), the n % 4 that no float4 covers. Add the scalar tail: "
                            "threads with global index i < n % 4 each add one, j = 4 * (n / 4) + i, c[j] = a[j] + b[j].")
            result.diagnoses[-1]["entry"] = fn
            return


# ---- C2 (77): what the wrong sums look like ----

def _reduction_outputs(result: Result) -> None:
    rows = _by_entry(result, {"sum": "reduce_sum", "int": "reduce_sum_int"})
    floats = [t["evidence"] for t in rows.get("reduce_sum", []) if t["status"] == "fail"
              and "result_is_nan" in t.get("evidence", {})]
    ints = [t["evidence"] for t in rows.get("reduce_sum_int", []) if t["status"] == "fail"
            and "difference" in t.get("evidence", {})]
    if not floats or not all(e.get("result_is_nan") == "1" for e in floats):
        return
    if ints and all(_int(e, "difference") == -1 for e in ints):
        result.diagnose("out-not-zeroed",
                        "*out 没有先清零就被累加了：float 的结果全是 NaN（测试预先在 *out 里放了 NaN），"
                        "int 的结果都恰好少 1（预先放的 0xFFFFFFFF 就是 -1）。在 atomicAdd 之前把 *out 清零"
                        "（cudaMemsetAsync(out, 0, sizeof(*out))），或者让 kernel 写入而不是累加。",
                        "*out was accumulated into without being zeroed first: every float result is NaN (the test "
                        "put NaN in *out), and every int result is exactly 1 too small (the 0xFFFFFFFF it put there is "
                        "-1). Zero *out before the atomics (cudaMemsetAsync(out, 0, sizeof(*out))), or store the sum "
                        "instead of adding to it.")
    elif ints and all(e.get("result") == "-1" for e in ints):
        result.diagnose("result-is-nan",
                        "*out 从来没有被写过：float 结果是测试预先放的 NaN，int 结果是预先放的 -1。"
                        "检查最后一个 kernel 是否启动、线程 0 是否执行了 *out = sum。",
                        "*out was never written: the float result is the NaN the test put there, the int result the -1. "
                        "Check that the last kernel is launched and that thread 0 stores *out = sum.")
    else:
        result.diagnose("result-is-nan",
                        "float 的和是 NaN：有线程加进了一个从未写过的值（没初始化的共享内存、越过 x 末尾的读，"
                        "或没有清零的 *out）。",
                        "The float sum is NaN: some thread added a value nobody wrote (uninitialised shared memory, a read "
                        "past the end of x, or an *out that was not zeroed).")
    result.diagnoses[-1]["entry"] = "reduce_sum"


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
        _uncoalesced(result, failed["uncoalesced-store"], "uncoalesced-store")
    if "no-vector-loads" in failed:
        _no_vector_loads(result, failed["no-vector-loads"])
    for id in ("uncoalesced-load", "uncoalesced-access"):
        if id in failed:
            _uncoalesced(result, failed[id], id)
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


def _uncoalesced(result: Result, check: dict, id: str) -> None:
    bad = check.get("lines") or []
    want = {"uncoalesced-store": "global_st", "uncoalesced-load": "global_ld"}.get(id)
    rows = [r for r in bad if r["op"] == want] or bad
    if not rows:
        return
    w = rows[0]
    kind_zh, kind_en = ("写", "store") if w["op"].endswith("st") else ("读", "load")
    fix_zh, fix_en = advice(result, id) if (id, result.problem) in ADVICE else advice(result, "uncoalesced")
    result.diagnose(id,
                    f"第 {w['line']} 行的全局{kind_zh}没有合并：每个请求触及 {w['per_request']:g} 个 32 字节扇区，理想 {w['ideal']:g}。"
                    f"{fix_zh}",
                    f"The global {kind_en} on line {w['line']} is not coalesced: {w['per_request']:g} 32-byte sectors per "
                    f"request, ideal {w['ideal']:g}. {fix_en}",
                    w["file"], w["line"])


def _no_vector_loads(result: Result, check: dict) -> None:
    """A total rule on load requests failed: name the entry's scalar load line (4 bytes a lane) if any."""
    scalar = [l for launch in result.counters if launch.get("entry") == check.get("entry")
              for l in launch["lines"] if "global_ld" in l["requests"]
              and int((l.get("sample") or {}).get("bytes_per_lane", 4) or 4) < 16]
    w = max(scalar, key=lambda l: l["requests"]["global_ld"]) if scalar else None
    at_zh = f"第 {w['line']} 行每个线程一次只读 {w['sample'].get('bytes_per_lane', 4)} 字节。" if w else ""
    at_en = f"Line {w['line']} loads {w['sample'].get('bytes_per_lane', 4)} bytes per thread at a time. " if w else ""
    fix_zh, fix_en = advice(result, "no-vector-loads")
    result.diagnose("no-vector-loads",
                    f"{check['entry']} 没有用向量读：{check['message']['zh']}。{at_zh}{fix_zh}",
                    f"{check['entry']} does not load vectors: {check['message']['en']}. {at_en}{fix_en}",
                    w["file"] if w else "", w["line"] if w else 0)


def _bank_conflicts(result: Result, check: dict) -> None:
    rows = check.get("lines") or []
    if not rows:
        return
    w = rows[0]
    ways = round(w["per_request"] / max(w["ideal"], 1e-9), 2)
    launch, line = _line_of(result, w)
    stride, wrong_dimension = _tile_evidence(launch, line, w["op"])
    kind_zh = "读" if w["op"].endswith("ld") else "写"
    kind_en = "read" if w["op"].endswith("ld") else "write"
    fix_zh, fix_en = advice(result, "bank-conflicts")
    if stride and stride % 128 == 0:
        stride_zh = f"同一 warp 的相邻线程相隔 {stride} 字节（{stride // 4} 个字，正好是 32 的倍数），全部落在同一个 bank。"
        stride_en = (f"Neighbouring lanes are {stride} bytes ({stride // 4} words, a multiple of 32) apart, so they all "
                     "hit one bank. ")
    elif stride and stride % 4 == 0:
        share = math.gcd(stride // 4, 32)
        stride_zh = f"取样的那次请求里，相邻线程相隔 {stride // 4} 个字：每个 bank 有 {share} 个线程。"
        stride_en = (f"In the request sampled, neighbouring lanes are {stride // 4} words apart: {share} lanes share each "
                     "bank. ")
    else:
        stride_zh = stride_en = ""
    if wrong_dimension and result.problem == 78:
        fix_zh = ("tile 多出的是一行而不是一列（填充加在了错误的维度，例如 [33][32]）：填充要加在列上，声明 [32][33]，"
                  "让每一行错开一个 bank。")
        fix_en = ("The tile is padded with an extra row instead of an extra column (padding in the wrong dimension, "
                  "e.g. [33][32]): pad the columns, [32][33], so that each row starts one bank later.")
    result.diagnose("bank-conflicts",
                    f"第 {w['line']} 行的共享内存{kind_zh}有{'平均 ' if ways != int(ways) else ' '}{ways:g} 路 bank 冲突：每个请求 {w['per_request']:g} 个 wavefront，"
                    f"理想 {w['ideal']:g}。{stride_zh}{fix_zh}",
                    f"Line {w['line']}: {'an average' if ways != int(ways) else 'a'} {ways:g}-way bank conflict on the shared-memory {kind_en}: {w['per_request']:g} "
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
