"""Problem 81 (C4, SGEMM): what only this problem knows about wrong answers.

The judge's generic stages call three things here (drills/diagnose.py finds this module through the
manifest's slug):
  ADVICE                      the fix to append to a generic diagnosis (missing-barrier, out-of-bounds,
                              bank-conflicts, barrier-in-divergent-branch, ...), in this problem's words;
  diagnose_outputs(result)    named diagnoses from the pattern of wrong elements across shapes, read from
                              the evidence tests/c4_sgemm_test.cu records (never from the learner's source);
  diagnose_checks(result, failed) -> set of ids handled
                              diagnoses for failed technique checks whose wording is this problem's.

Stable ids: output-not-written, k-tail-not-handled, a-b-indices-swapped, c-indices-swapped,
mn-tail-not-handled, tiles-not-reused, no-shared-memory (the generic missing-barrier, out-of-bounds,
bank-conflicts and barrier-in-divergent-branch take ADVICE from here).
"""

from __future__ import annotations

TILE = 32  # the skeleton's tile; the evidence's "whole tiles" and k_mod_tile use it

# GoogleTest variant name -> host function
ENTRIES = {"tiled": "sgemm_tiled", "naive": "sgemm_naive", "fast": "sgemm_fast",
           "uncoalesced": "sgemm_uncoalesced", "blocktile_1d": "sgemm_blocktile_1d",
           "blocktile_2d": "sgemm_blocktile_2d", "vectorized": "sgemm_vectorized",
           "warptile": "sgemm_warptile", "double_buffered": "sgemm_double_buffered"}

ADVICE = {
    "missing-barrier": (
        "分块 kernel 每一轮要两个 __syncthreads()：一个在装完 As、Bs 之后、内层循环读它们之前（别的 warp 装的元素要先到齐）；"
        "一个在内层循环之后、下一轮装 tile 之前（快的 warp 不能覆盖慢的 warp 还在读的 tile）。",
        "A tiled kernel needs two __syncthreads() per round: one after loading As and Bs and before the inner loop "
        "reads them (the elements other warps load must be there), and one after the inner loop and before the next "
        "round loads (a fast warp must not overwrite a tile a slow warp is still reading)."),
    "out-of-bounds": (
        "装 tile 时三个方向都要检查：A 的元素要 m < M 且 k0 + tx < K，B 的元素要 k0 + ty < K 且 n < N，界外装 0.0f；"
        "写 C 时要 m < M 且 n < N。",
        "Check all three directions when loading a tile: an element of A needs m < M and k0 + tx < K, an element of B "
        "needs k0 + ty < K and n < N, and outside you load 0.0f; writing C needs m < M and n < N."),
    "barrier-in-divergent-branch": (
        "不要在循环前让 C 之外的线程 return：它们也要参加每一轮的装载（装 0）和两个 __syncthreads()。"
        "把越界判断放到装载的条件和最后写 C 的 if 里。",
        "Do not let threads outside C return before the loop: they must still take part in every round's loads "
        "(loading zeros) and in both __syncthreads(). Put the bounds test into the load conditions and into the if "
        "that writes C."),
    "bank-conflicts": (
        "内层循环读 As[ty][k]（同一 warp 同一个地址：广播）和 Bs[k][tx]（32 个相邻的字：32 个 bank）。"
        "让 threadIdx.x 落在最后一维上，不要把 tile 转置存放再按列读。",
        "The inner loop should read As[ty][k] (one address for the whole warp: a broadcast) and Bs[k][tx] (32 "
        "neighbouring words: 32 banks). Keep threadIdx.x on the last index; do not store a tile transposed and read "
        "it down a column."),
}


def _int(ev: dict, key: str) -> int:
    try:
        return int(float(ev.get(key, 0)))
    except (TypeError, ValueError):
        return 0


def _cases_by_entry(result) -> dict:
    """{host function: its GoogleTest rows with a 3-dimensional shape}, the contract's first."""
    out: dict[str, list] = {}
    for t in result.tests:
        shape = t.get("shape") or []
        if t.get("variant") in ENTRIES and len(shape) == 3:
            out.setdefault(ENTRIES[t["variant"]], []).append(t)
    return {e: out[e] for e in ENTRIES.values() if e in out}


def _shapes(tests: list, limit: int = 4) -> str:
    return ", ".join("x".join(str(d) for d in t["shape"]) for t in tests[:limit])


def diagnose_outputs(result) -> bool:
    """Name the first entry's mistake that the evidence shows; True when one was named."""
    for fn, tests in _cases_by_entry(result).items():
        if _diagnose_entry(result, fn, tests):
            result.diagnoses[-1]["entry"] = fn
            return True
    return False


def _diagnose_entry(result, fn: str, tests: list) -> bool:
    failed = [t for t in tests if t["status"] == "fail"]
    if not failed:
        return False
    passed = [t for t in tests if t["status"] == "pass"]
    with_ev = [t for t in failed if "wrong" in t.get("evidence", {})]
    ev = [t["evidence"] for t in with_ev]

    if with_ev and len(with_ev) == len(failed) and all(
            _int(e, "unwritten") == t["shape"][0] * t["shape"][1] for t, e in zip(with_ev, ev)):
        result.diagnose("output-not-written",
                        f"{fn} 一个元素也没有写：C 仍然全是测试预先填入的 NaN。kernel 还是 TODO 吗？或者 kernel 根本没有启动？",
                        f"{fn} wrote no element at all: C still holds the NaN the test filled it with. Is the kernel "
                        "still a TODO, or was it never launched?")
        return True

    truncated = [_int(e, "wrong_matches_k_truncated_to_tile") for e in ev]
    tail_only = all(t["shape"][2] % TILE for t in failed) and any(
        t["shape"][2] % TILE == 0 and t["shape"][2] > TILE for t in passed)
    if any(truncated) or tail_only:
        tile = max(truncated) if any(truncated) else TILE
        result.diagnose("k-tail-not-handled",
                        f"{fn} 只在 K 是 {tile} 的倍数时正确（出错的形状 M×N×K：{_shapes(failed)}）"
                        + ("，错误结果正好等于丢掉最后不满一块的那几个 k 的乘积" if any(truncated) else "")
                        + "。沿 K 的最后一块 tile 只有一部分在 A、B 里：循环要走到 k0 < K（不是 k0 + TILE <= K），"
                          "界外的元素装 0.0f，不要跳过它，也不要读界外。",
                        f"{fn} is right only when K is a multiple of {tile} (failing shapes MxNxK: {_shapes(failed)})"
                        + ("; the wrong C equals the product without the last, partial tile of k" if any(truncated) else "")
                        + ". The last tile along K lies only partly inside A and B: loop while k0 < K (not k0 + TILE <= K) "
                          "and load 0.0f for the elements outside; neither skip that tile nor read outside.")
        return True

    if any(e.get("wrong_matches_tile_operands_swapped") == "1" for e in ev):
        result.diagnose("a-b-indices-swapped",
                        f"{fn} 的结果正好等于把内层循环写成 As[k][tx] * Bs[ty][k]：两个 tile 的下标用反了。"
                        "As 的行是 C 的行（ty），Bs 的列是 C 的列（tx）：sum += As[ty][k] * Bs[k][tx]。",
                        f"{fn}'s C equals an inner loop of As[k][tx] * Bs[ty][k]: the two tiles' indices are swapped. "
                        "As's row is C's row (ty) and Bs's column is C's column (tx): sum += As[ty][k] * Bs[k][tx].")
        return True
    for key, which_zh, which_en, right in (
            ("wrong_matches_a_read_transposed", "A 被当成 K×M 读了（A[k][m]）", "A is read as if it were KxM (A[k][m])",
             "A[(int64_t)m * K + k]"),
            ("wrong_matches_b_read_transposed", "B 被当成 N×K 读了（B[n][k]）", "B is read as if it were NxK (B[n][k])",
             "B[(int64_t)k * N + n]")):
        if any(e.get(key) == "1" for e in ev):
            result.diagnose("a-b-indices-swapped",
                            f"{fn}：{which_zh}。行主序下 A 是 M×K、B 是 K×N，这个元素是 {right}。",
                            f"{fn}: {which_en}. Row-major A is MxK and B is KxN: the element is {right}.")
            return True
    if any(e.get("wrong_matches_c_written_transposed") == "1" for e in ev):
        result.diagnose("c-indices-swapped",
                        f"{fn} 算对了每个元素，但把 C[m][n] 写到了 C[n][m] 的位置：行主序下 C 的第 m 行第 n 列是 "
                        "C[(int64_t)m * N + n]。",
                        f"{fn} computes every element right but writes C[m][n] where C[n][m] belongs: row-major C's "
                        "element (m, n) is C[(int64_t)m * N + n].")
        return True

    written_wrong = [(_int(e, "wrong") - _int(e, "unwritten"), _int(e, "wrong_outside_whole_tiles")) for e in ev]
    if ev and len(ev) == len(failed) and all(w > 0 and outside == _int(e, "wrong") for (w, outside), e in
                                              zip(written_wrong, ev)):
        result.diagnose("mn-tail-not-handled",
                        f"{fn} 只在最后不满 32 行或 32 列的 tile 里出错（{_shapes(failed)}）：检查 M、N 方向的边界——"
                        "界外的 A、B 元素装 0.0f，只写 m < M 且 n < N 的 C。",
                        f"{fn} goes wrong only in the last, partial tiles of rows or columns ({_shapes(failed)}): check "
                        "the bounds along M and N: load 0.0f for elements outside A and B, and write C only where "
                        "m < M and n < N.")
        return True
    return False


def diagnose_checks(result, failed: dict) -> set:
    """Diagnoses for failed technique checks ({diagnosis id: check row}); returns the ids handled."""
    handled = set()
    check = failed.get("tiles-not-reused")
    if check:
        result.diagnose("tiles-not-reused",
                        f"{check['entry']} 装了 tile，却没有复用它们：{check['message']['zh']}。"
                        "内层循环应只读共享内存里的 As[ty][k] 和 Bs[k][tx]，不再读全局内存里的 A、B；"
                        "每个元素从全局内存读一次，被 tile 里的 32 个线程用 32 次。",
                        f"{check['entry']} loads tiles but does not reuse them: {check['message']['en']}. The inner "
                        "loop should read only As[ty][k] and Bs[k][tx] from shared memory, not A and B from global "
                        "memory: each element is read from global memory once and used by 32 threads of the tile.")
        handled.add("tiles-not-reused")
    check = failed.get("no-shared-memory")
    if check:
        result.diagnose("no-shared-memory",
                        f"{check['entry']} 没有使用共享内存（没有执行任何共享内存写）。每一轮先把 A 的 32×32 块和 B 的 "
                        "32×32 块装进 __shared__ 的 As、Bs，同步后再在 tile 上做 32 次乘加。",
                        f"{check['entry']} does not use shared memory (no shared-memory store ran). In each round, load "
                        "a 32x32 block of A and one of B into __shared__ As and Bs, synchronise, then do the 32 "
                        "multiply-adds on the tiles.")
        handled.add("no-shared-memory")
    return handled
