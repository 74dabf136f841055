"""Named diagnoses from evidence: the build log, the simulator's checks, the pattern of wrong
elements. Never from reading the learner's source text."""

from __future__ import annotations

from .catalog import Problem
from .result import Result, error, msg


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


def _loc(e: dict) -> tuple[str, int]:
    return e.get("file", "") or "", int(e.get("line", 0) or 0)


def _where(e: dict) -> str:
    b, t = e.get("block", [0, 0, 0]), e.get("thread", [0, 0, 0])
    return f"block ({b[0]},{b[1]},{b[2]}) thread ({t[0]},{t[1]},{t[2]})"


def _from_sim_event(result: Result, event: dict) -> None:
    if event.get("event") == "host-deref-device-pointer":
        result.diagnose("host-deref-device-pointer",
                        f"主机代码读写了设备内存（地址 {event.get('address', '?')}）：设备指针只能在 kernel 里或通过 cudaMemcpy 访问。",
                        f"Host code dereferenced device memory (address {event.get('address', '?')}): use device pointers only in kernels or through cudaMemcpy.")
        return
    for e in event.get("errors", []) if event.get("event") == "launch" else []:
        file, line = _loc(e)
        kind = e.get("kind", "")
        where = _where(e)
        if kind in ("out-of-bounds", "misaligned"):
            zh_kind = "越界" if kind == "out-of-bounds" else "未对齐"
            result.diagnose("out-of-bounds",
                            f"第 {line} 行{zh_kind}访问：{where}，{e.get('allocation', '')} 偏移 {e.get('offset', '?')}。{e.get('message', '')}",
                            f"Line {line}: {kind} access by {where}, {e.get('allocation', '')} offset {e.get('offset', '?')}. {e.get('message', '')}",
                            file, line)
        elif kind == "shared-race":
            result.diagnose("missing-barrier",
                            f"共享内存竞争（第 {line} 行）：{where} 读写了别的 warp 写入的数据，中间没有 __syncthreads()。{e.get('detail', '')}",
                            f"Shared-memory race at line {line}: {where} touched data another warp wrote with no __syncthreads() between. {e.get('detail', '')}",
                            file, line)
        elif kind == "watchdog":
            result.diagnose("timeout", f"kernel 没有结束（第 {line} 行附近）：{e.get('message', '')}",
                            f"The kernel never finished (near line {line}): {e.get('message', '')}", file, line)
        else:
            result.diagnose(kind or "simulator-error", f"第 {line} 行：{e.get('message', '')}",
                            f"Line {line}: {e.get('message', '')}", file, line)


def _from_wrong_outputs(result: Result) -> None:
    for t in result.tests:
        ev = t.get("evidence", {})
        if t["status"] == "fail" and ev.get("output_is_input_copied") == "1":
            result.diagnose("copy-not-transpose",
                            "输出与输入逐元素相同：数据被原样拷贝，没有转置。阶段 2 应按列读 tile：tile[threadIdx.x][threadIdx.y + j]。",
                            "The output equals the input element for element: it was copied, not transposed. Stage 2 must read the tile down a column: tile[threadIdx.x][threadIdx.y + j].")
            return
