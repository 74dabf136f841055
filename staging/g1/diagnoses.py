"""G1 (problem 84): named diagnoses from the evidence tests/g1_hgemm_test.cu records, the simulator's
race reports and the technique checks. Plain functions over plain data, to plug into the judge's
per-problem module once "one problem, one place" lands (drills/problems/<slug>.py).

A test, as the judge's result object carries it:
    {"name": "G1/Hgemm.MatchesHostReference/mma_144x272x528", "variant": "mma",
     "shape": [144, 272, 528], "status": "pass" | "fail" | "skip", "evidence": {key: str}}
Every function returns diagnoses as {"id", "entry", "zh", "en"} dicts, the most specific first.
"""

from __future__ import annotations

K_TILE = 32  # the skeleton's BK: a K loop that drops the last partial tile shows up at K % 32 != 0


def _int(ev: dict, key: str) -> int:
    try:
        return int(float(ev.get(key, 0)))
    except (TypeError, ValueError):
        return 0


def _exact_case(test: dict) -> bool:
    """The all-ones and small-integer cases (names carry "ones_" or "integers_")."""
    name = test.get("name", "")
    return "_ones_" in name or "_integers_" in name


def _entry(variant: str) -> str:
    return f"hgemm_{variant}"


def diagnose_variant(variant: str, tests: list[dict]) -> list[dict]:
    """What the failed cases of one entry point say about its mistake."""
    failed = [t for t in tests if t.get("status") == "fail"]
    if not failed:
        return []
    fn = _entry(variant)
    with_ev = [t for t in failed if "wrong" in t.get("evidence", {})]
    out: list[dict] = []

    def say(id: str, zh: str, en: str) -> None:
        out.append({"id": id, "entry": fn, "zh": zh, "en": en})

    # Nothing written at all: still a TODO, or the kernel never ran.
    if with_ev and len(with_ev) == len(failed) and all(
            _int(t["evidence"], "unwritten") == t["shape"][0] * t["shape"][1] for t in with_ev):
        say("output-not-written",
            f"{fn} 一个元素也没有写：C 仍然全是测试预先填入的 NaN。kernel 还是 TODO 吗？写回的循环执行到了吗？",
            f"{fn} wrote no element: C still holds the NaN the test filled it with. Is the kernel still a TODO, "
            "and does the store loop run?")
        return out

    normal = [t for t in with_ev if not _exact_case(t)]
    # Every wrong output representable in half: the sums were kept in 16 bits.
    if normal and all(t["evidence"].get("outputs_representable_in_half") == "1" for t in normal):
        say("wrong-accumulator-type",
            f"{fn} 的每个错误输出都恰好是一个 half 能表示的数，误差远超容差：累加是在 16 位里做的。累加器用 float"
            "（wmma::fragment<accumulator, 16, 16, 16, float>，或 mma 的 .f32 累加形式），最后才写成 float。",
            f"Every wrong output of {fn} is exactly a half value, far outside the tolerance: the sums were kept in 16 "
            "bits. Accumulate in float (wmma::fragment<accumulator, 16, 16, 16, float>, or mma's .f32 accumulator "
            "form).")
        return out

    # The product over the first floor(K/tile)*tile columns only: the last partial K tile is skipped.
    truncated = [t for t in with_ev if _int(t["evidence"], "wrong_matches_k_truncated_to_tile") > 0]
    k_aligned = [t for t in tests if t.get("status") in ("pass", "fail") and t["shape"][2] % K_TILE == 0]
    if truncated and all(t["shape"][2] % K_TILE != 0 for t in failed) and all(
            t["status"] == "pass" for t in k_aligned):
        tile = _int(truncated[0]["evidence"], "wrong_matches_k_truncated_to_tile")
        shapes = ", ".join("x".join(map(str, t["shape"])) for t in failed[:3])
        say("k-loop-tail",
            f"{fn} 只在 K 不是 {K_TILE} 的倍数时出错（{shapes}），结果恰好等于只用前 ⌊K/{tile}⌋·{tile} 列算的乘积："
            "最后一个不完整的 K tile 被跳过了。循环条件用 k0 < K，tile 里超出 K 的部分填 0。",
            f"{fn} fails only when K is not a multiple of {K_TILE} ({shapes}), and its result equals the product over "
            f"the first floor(K/{tile})*{tile} columns: the last, partial K tile is skipped. Loop while k0 < K and fill "
            "the part of the tile past K with zeros.")
        return out

    # Operand fragments: an 8x8 block of A or B read transposed (ldmatrix with or without .trans).
    if any(t["evidence"].get("wrong_matches_b_blocks_transposed") == "1" for t in with_ev):
        say("fragment-layout-wrong",
            f"{fn} 的结果等于把 B 的每个 8×8 块转置后的乘积：B 的片段是用不带 .trans 的 ldmatrix 读的。B 在共享内存里按 "
            "[k][n] 存，mma 要每个 lane 拿同一列的两个 k：用 ldmatrix...x4.trans。",
            f"{fn} computes the product with every 8x8 block of B transposed: B's fragments were read with ldmatrix "
            "without .trans. B is stored [k][n] in shared memory and mma wants two k of one column per lane: use "
            "ldmatrix...x4.trans.")
        return out
    if any(t["evidence"].get("wrong_matches_a_blocks_transposed") == "1" for t in with_ev):
        say("fragment-layout-wrong",
            f"{fn} 的结果等于把 A 的每个 8×8 块转置后的乘积：A 的片段读成了转置的（ldmatrix 多了 .trans，或行列地址对调）。"
            "A 用不带 .trans 的 ldmatrix，lane i 指向第 i%16 行、第 i/16 个 8 列。",
            f"{fn} computes the product with every 8x8 block of A transposed: A's fragments were read transposed "
            "(ldmatrix with .trans, or rows and columns swapped in the addresses). Read A without .trans, lane i "
            "pointing at row i%16, column block i/16.")
        return out
    # The accumulator's values land in the wrong places of each 16x8 tile.
    permuted = sum(_int(t["evidence"], "wrong_tiles_16x8_permuted") for t in with_ev)
    tiles = sum(_int(t["evidence"], "tiles_16x8") for t in with_ev)
    if tiles and permuted >= tiles // 2:
        say("fragment-layout-wrong",
            f"{fn}：C 的每个 16×8 块里数都对，位置错了：写回时用错了累加器片段的布局。lane i 的 c0、c1 是第 i/4 行、"
            "第 2(i%4) 和 2(i%4)+1 列，c2、c3 是第 i/4+8 行的同两列。",
            f"{fn}: every 16x8 tile of C holds the right values in the wrong places: the store uses the wrong "
            "accumulator fragment layout. Lane i's c0, c1 are row i/4, columns 2(i%4) and 2(i%4)+1; c2, c3 are row "
            "i/4+8, the same columns.")
        return out

    # Wrong only in the partial block tiles at the right and bottom edges.
    if with_ev and all(_int(t["evidence"], "wrong_outside_whole_tiles") == _int(t["evidence"], "wrong")
                       for t in with_ev):
        say("partial-tile-wrong",
            f"{fn} 只在最右、最下那些不完整的 block tile 里出错：装 tile 时越过 M、N 的部分要填 0，写回时只写 "
            "row < M 且 col < N 的元素。",
            f"{fn} is wrong only in the partial block tiles at the right and bottom edges: fill the part of a tile "
            "past M or N with zeros, and store only elements with row < M and col < N.")
    return out


def diagnose_wrong_outputs(tests: list[dict]) -> list[dict]:
    """The contract's entry points first (hgemm_mma, then hgemm_wmma, then hgemm_fast), then the rest."""
    by_variant: dict[str, list] = {}
    for t in tests:
        if t.get("variant") and t.get("shape"):
            by_variant.setdefault(t["variant"], []).append(t)
    first = {"mma": 0, "wmma": 1, "fast": 2}
    out: list[dict] = []
    for variant in sorted(by_variant, key=lambda v: (first.get(v, 3), v)):
        out += diagnose_variant(variant, by_variant[variant])
    return out


# The simulator's report of a shared-memory read of a cp.async destination before its group was
# waited for (and a barrier passed) names both lines; its kind is the tensor-core branch's
# (sim/README.md there). The judge already turns a simulator event into a diagnosis with the learner's
# line; this says which id and words G1 gives it.
def cp_async_race(copy_line: int, read_line: int, file: str) -> dict:
    return {
        "id": "cp-async-read-before-wait",
        "zh": (f"{file} 第 {read_line} 行读的共享内存，是第 {copy_line} 行的 cp.async 正在写的位置，而这一组拷贝还没有被 "
               "cp.async.wait_group 等到：先 wait_group（数字是还允许未完成的组数），再 __syncthreads()，再读。"),
        "en": (f"Line {read_line} of {file} reads shared memory that the cp.async on line {copy_line} is still writing: "
               "its group has not been waited for. Call cp.async.wait_group (its number is how many groups may still be "
               "in flight), then __syncthreads(), then read."),
    }


# A failed technique check and the diagnosis it names (the manifest's `diagnosis` field).
CHECK_DIAGNOSES = {
    "tensor-cores-used": ("no-tensor-cores",
                          "hgemm_mma 没有执行 mma.sync：乘加是在 CUDA 核心上做的。",
                          "hgemm_mma executes no mma.sync: the multiply-adds run on the CUDA cores."),
    "ldmatrix-used": ("no-ldmatrix",
                      "片段不是用 ldmatrix 读的：每个 lane 自己读 8 个 half 要多出好几倍的共享内存指令。",
                      "The fragments are not loaded with ldmatrix: each lane loading its own 8 halves takes several "
                      "times the shared-memory instructions."),
    "no-ldmatrix-conflicts": ("missing-swizzle",
                              "这一行的 ldmatrix 每条要的 wavefront 超过 4 个：tile 的行距是 64 或 256 字节，8 行的同一个 16 字节块"
                              "落在同一组 bank 上。按行号异或块号（XOR swizzle），写 tile 和读 tile 用同一个映射。",
                              "The ldmatrix on this line needs more than 4 wavefronts each: the tile's rows are 64 or 256 "
                              "bytes apart, so the same 16-byte chunk of 8 rows falls into one bank group. XOR the chunk "
                              "index with the row (the XOR swizzle), with the same map for writing and reading the tile."),
    "global-loads-16-bytes": ("no-vector-loads",
                              "装 tile 的全局读不是每个线程 16 字节：按 uint4（8 个 half）读写一个块。",
                              "The tile loads do not read 16 bytes per thread: copy one uint4 (8 halves) per chunk."),
}
