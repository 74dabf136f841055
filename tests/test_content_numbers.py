"""The numbers a chapter quotes equal the measured tables under benchmarks/ (they run in every clone).

Run: python -m pytest -q tests/test_content_numbers.py

The Chinese chapter is compared here; test_content.py keeps the English twin's tables and numbers
equal to the Chinese ones, so both languages are covered. The SASS the chapters describe (loads in
flight before the first store, predicated reduction steps) is checked against benchmarks/sass/, which
benchmarks/sass/dump.sh regenerates: a new compiler that changes it fails here, and the text must follow.
"""

from __future__ import annotations

import pytest

from drills import ROOT
from drills.authoring import mdtables

BENCH = ROOT / "benchmarks"
ANCHORS = BENCH / "h200-anchors-2026-11.md"
C1C2 = BENCH / "h200-c1-c2-2026-11-29.md"
C3 = BENCH / "h200-c3-2026-11-29.md"


def tables(path):
    return mdtables.tables(path.read_text(encoding="utf-8"))


def chapter(name: str):
    return tables(ROOT / "content" / name)


def cell(table, key, col):
    row = mdtables.row(table, key)
    assert row is not None, f"no single row containing {key!r} in the table headed {table[0]}"
    heads = [h for h in table[0]]
    assert col in heads, f"no column {col!r} in {heads}"
    return mdtables.number(row[heads.index(col)])


def compare(pairs) -> list[str]:
    return [f"{what}: chapter {got}, benchmarks {want}" for what, got, want in pairs if got != want]


# ---- C1 and C2: the project's run and the PyTorch anchors ----------------------------------------

OPS = {  # chapter -> (benchmarks table's heading word, chapter row key -> benchmarks row key)
    "c1.md": ("C1, vector add", {
        "cudaMemcpy": "cudaMemcpy", "`copy_vec4`": "`copy_vec4`", "`vector_add`：": "`vector_add` (one",
        "`vector_add_grid_stride`": "`vector_add_grid_stride`", "`vector_add_vec4`": "`vector_add_vec4`",
        "`vector_add_fast`": "`vector_add_fast`", "PyTorch 向量加法": "torch `x + y`"}),
    "c2.md": ("C2, reduction", {
        "cudaMemcpy": "cudaMemcpy", "`copy_vec4`": "`copy_vec4`",
        "`reduce_interleaved_divergent`": "`reduce_interleaved_divergent`",
        "`reduce_interleaved_strided`": "`reduce_interleaved_strided`", "`reduce_sequential`": "`reduce_sequential`",
        "`reduce_first_add`": "`reduce_first_add`", "`reduce_warp_shuffle`": "`reduce_warp_shuffle`",
        "`reduce_grid_stride`": "`reduce_grid_stride`", "`reduce_atomic`": "`reduce_atomic`",
        "`reduce_sum`：": "`reduce_sum`", "`torch.sum`": "torch `x.sum()`"}),
}
ANCHOR_ROWS = {"c1.md": {"`out.copy_(x)`": "copy (`out.copy_(x)`)", "PyTorch 向量加法": "vector add"},
               "c2.md": {"`out.copy_(x)`": "copy (`out.copy_(x)`)", "`torch.sum`": "`torch.sum`"}}
OWN_COLS = {"本项目实测 ms": "ms", "本项目实测 GB/s": "GB/s", "本项目实测 占 memcpy": "% memcpy"}
ANCHOR_COLS = {"锚点 ms": "time", "锚点 GB/s": "rate"}


def ops_table(name):
    t = mdtables.find(chapter(name), ["本项目实测", "锚点"])
    assert t, f"content/{name} needs its measured table (锚点 and 本项目实测 columns)"
    return t


def bench_table(heading_row0: str):
    text = C1C2.read_text(encoding="utf-8")
    part = text[text.index(heading_row0):]
    return mdtables.tables(part)[0]


@pytest.mark.parametrize("name", sorted(OPS))
def test_own_columns_equal_the_projects_run(name):
    heading, rows = OPS[name]
    mine, bench = ops_table(name), bench_table(heading)
    pairs = []
    for key, bkey in rows.items():
        for col, bcol in OWN_COLS.items():
            got, want = cell(mine, key, col), cell(bench, bkey, bcol)
            pairs.append((f"{key} / {col}", got, want))
    errors = compare(pairs)
    assert not errors, "\n".join(errors)
    assert len(pairs) >= 20


@pytest.mark.parametrize("name", sorted(ANCHOR_ROWS))
def test_anchor_columns_equal_the_anchors(name):
    mine = ops_table(name)
    anchors = mdtables.find(tables(ANCHORS), first="operation")
    pairs = [(f"{key} / {col}", cell(mine, key, col), cell(anchors, akey, acol))
             for key, akey in ANCHOR_ROWS[name].items() for col, acol in ANCHOR_COLS.items()]
    errors = compare(pairs)
    assert not errors, "\n".join(errors)


# ---- C3: the transpose anchors, the project's run, the counters ----------------------------------

SHAPES = ["8192×8192", "4113×8197", "16384×16384"]
C3_ROWS = {
    "cudaMemcpy": "cudaMemcpy device to device",
    "`copy_tiled`": "copy kernel, same shape and tiling (the chapter's upper bound)",
    "`transpose_naive`": "naive",
    "`transpose_tiled_unpadded`": "shared tile [32][32]",
    "`transpose_tiled`：": "shared tile [32][33]",
    "`transpose_tiled_swizzled`": "shared tile [32][32], XOR swizzle",
    "`transpose_fast`": "64×64 tile, float4 global access where aligned",
    "`x.t().contiguous()`": "PyTorch `x.t().contiguous()`",
    "`x.clone()`": "PyTorch `x.clone()`",
}
C3_OWN = {"`copy_tiled`": "copy kernel", "`transpose_naive`": "`transpose_naive`",
          "`transpose_tiled_unpadded`": "`transpose_tiled_unpadded`", "`transpose_tiled`：": "`transpose_tiled` [32][33]",
          "`transpose_tiled_swizzled`": "`transpose_tiled_swizzled`", "`transpose_fast`": "`transpose_fast`",
          "`x.t().contiguous()`": "torch", "cudaMemcpy": "cudaMemcpy"}


def c3_measured():
    t = mdtables.find(chapter("c3.md"), SHAPES + ["本项目实测"])
    assert t, "content/c3.md needs its measured table (the three shapes and 本项目实测 columns)"
    return t


def test_c3_anchor_columns_equal_the_anchors():
    anchors = mdtables.find(tables(ANCHORS), ["kernel"] + SHAPES)
    mine = c3_measured()
    pairs = [(f"{key} / {s}", cell(mine, key, s), cell(anchors, akey, s))
             for key, akey in C3_ROWS.items() for s in SHAPES]
    errors = compare(pairs)
    assert not errors, "\n".join(errors)


def test_c3_own_columns_equal_the_projects_run():
    bench = mdtables.find(tables(C3), ["variant", "8192×8192 GB/s"])
    mine = c3_measured()
    pairs = []
    for key, bkey in C3_OWN.items():
        pairs.append((f"{key} / 8192²", cell(mine, key, "本项目实测 8192×8192"), cell(bench, bkey, "8192×8192 GB/s")))
        pairs.append((f"{key} / 4113×8197", cell(mine, key, "本项目实测 4113×8197"), cell(bench, bkey, "4113×8197 GB/s")))
    errors = compare(pairs)
    assert not errors, "\n".join(errors)


def test_c3_counter_tables_equal_the_anchors():
    anchors = mdtables.find(tables(ANCHORS), ["metric", "naive"])
    acol = {h: i for i, h in enumerate(anchors[0])}
    arow = {r[0].strip("`"): r for r in anchors[1:]}
    cols = {"朴素": "naive", "[32][32] tile": "[32][32]", "[32][33] tile": "[32][33]",
            "[32][32]": "[32][32]", "[32][33]": "[32][33]"}
    pairs = []
    for t in chapter("c3.md"):
        if "计数器" not in t[0][0]:
            continue
        for r in t[1:]:
            metric = r[0].split("`")[1] if "`" in r[0] else r[0]
            assert metric in arow, f"the chapter quotes {metric}, which the anchors do not list"
            for i, head in enumerate(t[0][1:], 1):
                pairs.append((f"{metric} / {head}", mdtables.number(r[i]), mdtables.number(arow[metric][acol[cols[head]]])))
    errors = compare(pairs)
    assert not errors, "\n".join(errors)
    assert len(pairs) >= 12, f"only {len(pairs)} counter values were compared"


def test_c3_launch_order_table_equals_the_projects_run():
    bench = mdtables.find(tables(C3), ["kernel", "4113×8197", "8193×8191"])
    mine = mdtables.find(chapter("c3.md"), ["调度顺序", "4113×8197", "8193×8191"])
    assert mine, "content/c3.md §8.2 needs its launch-order table"
    rows = {"拷贝 kernel": "copy kernel", "行优先（": "row-major launch", "分组": "grouped", "按列（": "column-major launch"}
    pairs = [(f"{k} / {s}", cell(mine, k, s), cell(bench, b, s))
             for k, b in rows.items() for s in ("4113×8197", "8192×8192", "8193×8191")]
    errors = compare(pairs)
    assert not errors, "\n".join(errors)


def test_c3_ncu_numbers_equal_the_projects_run():
    bench = mdtables.find(tables(C3), ["dram__bytes_read.sum"])
    md = (ROOT / "content" / "c3.md").read_text(encoding="utf-8")
    copy, row_major = mdtables.row(bench, "copy kernel"), mdtables.row(bench, "[32][33] row-major")
    quoted = [round(mdtables.number(copy[1]) / 1e6, 1), round(mdtables.number(copy[2]) / 1e6, 1),
              round(mdtables.number(row_major[1]) / 1e6, 1), round(mdtables.number(row_major[2]) / 1e6, 1),
              mdtables.number(copy[4]), mdtables.number(row_major[4])]
    missing = [q for q in quoted if f"{q:g}" not in md]
    assert not missing, f"content/c3.md §8.2 should quote {missing} from {C3.name}"


# ---- the SASS the chapters quote (benchmarks/sass/, made by benchmarks/sass/dump.sh) --------------

def sass_functions(name: str) -> dict[str, list[str]]:
    """Mangled function name -> its instructions (opcode with predicate, operands dropped)."""
    out, cur = {}, None
    for line in (BENCH / "sass" / name).read_text(encoding="utf-8").splitlines():
        if "Function :" in line:
            cur = out.setdefault(line.split("Function :")[1].strip(), [])
        elif cur is not None and line.strip().startswith("/*"):
            cur.append(line.split("*/", 1)[1].strip().rstrip(";").strip())
    return out


def function(funcs: dict, part: str) -> list[str]:
    found = [v for k, v in funcs.items() if part in k]
    assert len(found) == 1, f"{part}: {len(found)} functions match"
    return found[0]


def loads_before_first_store(instrs: list[str], load: str, store: str, start: int = 0) -> int:
    n = 0
    for ins in instrs[start:]:
        op = ins.split()[1] if ins.startswith("@") else ins.split()[0]
        if op.startswith(store):
            return n
        n += op.startswith(load)
    return n


def test_sass_backs_c1_loads_in_flight():
    f = sass_functions("c1_vector_add.sass")
    assert loads_before_first_store(function(f, "add_one_per_thread_kernel"), "LDG", "STG") == 2
    grid = function(f, "add_grid_stride_kernel")
    loop = max(range(len(grid)), key=lambda i: loads_before_first_store(grid, "LDG", "STG", i))
    assert loads_before_first_store(grid, "LDG", "STG", loop) == 8      # §4: 4x unrolled, 8 reads first
    vec4 = function(f, "add_vec4_kernelILi4")
    first_store = next(k for k, i in enumerate(vec4) if "STG.E.128" in i)
    assert sum("LDG.E.128" in i for i in vec4[:first_store]) == 8       # §5: 8 float4 loads first


def test_sass_backs_c2_predication():
    f = sass_functions("c2_reduction.sass")
    for kernel in ("interleaved_divergent_kernel", "sequential_kernel"):
        body = function(f, kernel)
        assert sum(i.startswith("BAR.SYNC") for i in body) == 9, kernel
        predicated = [i for i in body if i.startswith("@") and i.split()[1] in ("LDS", "STS", "FADD")]
        assert len(predicated) >= 8 * 4, kernel                          # §2/§4: every round's body predicated
        before_exit = body[:next(k for k, i in enumerate(body) if "EXIT" in i)]
        assert not any("BRA" in i for i in before_exit), kernel          # no branch: idle warps still issue
    scalar = function(f, "grid_stride_kernelIfLi1ELb0")
    assert max(loads_before_first_store(scalar, "LDG", "FADD", i) for i in range(len(scalar))) == 4  # §10


def test_sass_backs_c3_loads_before_the_tile():
    f = sass_functions("c3_transpose.sass")
    tile = function(f, "PaddedTile")
    assert loads_before_first_store(tile, "LDG", "STS") == 4           # §5: 4 reads in flight per thread


# ---- the H200 run of benchmarks/h200/chapters.sh, 2026-12-01 --------------------------------------

RUN = BENCH / "h200-chapters-2026-12-01.md"


def test_c1_controls_table_equals_the_2026_12_01_run():
    bench = mdtables.find(tables(RUN), ["variant", "% memcpy", "mismatches"])  # the first: n = 2^28
    mine = mdtables.find(chapter("c1.md"), ["block 数", "每线程在途的读"])
    assert mine, "content/c1.md §4 needs the table of the two controls"
    rows = {"一线程一元素": "vector_add (one per thread)", "`#pragma unroll 1`": "grid_stride_unroll1 (control)",
            "展开 4 次": "vector_add_grid_stride (loop unrolled 4x)", "4 个标量": "four_per_thread (control)",
            "`vector_add_vec4`": "vector_add_vec4"}
    pairs = [(f"{k} / {col}", cell(mine, k, col), cell(bench, b, bcol))
             for k, b in rows.items() for col, bcol in (("ms", "ms"), ("GB/s", "GB/s"), ("占 memcpy", "% memcpy"))]
    errors = compare(pairs)
    assert not errors, "\n".join(errors)


def test_c3_order_tables_equal_the_2026_12_01_run():
    bench = mdtables.find(tables(RUN), ["shape", "variant", "% copy_tiled"])
    gbs = {(r[0].replace("x", "×"), r[1]): mdtables.number(r[3]) for r in bench[1:]}
    mine = mdtables.find(chapter("c3.md"), ["kernel 与顺序", "8193×8191"])
    assert mine, "content/c3.md §8.2 needs the table of the copy and the transpose in three orders"
    rows = {"cudaMemcpy": "cudaMemcpy D2D", "拷贝 kernel，行优先": "copy_tiled (row-major)",
            "拷贝 kernel，按列": "copy, column-major order", "拷贝 kernel，对角": "copy, diagonal order",
            "[32][33]，行优先": "transpose_tiled [32][33] (row-major)",
            "[32][33]，按列": "[32][33], column-major order", "[32][33]，对角": "[32][33], diagonal order"}
    shapes = ("4113×8197", "8192×8192", "8193×8191")
    pairs = [(f"{k} / {s}", cell(mine, k, s), gbs[(s, b)]) for k, b in rows.items() for s in shapes]
    errors = compare(pairs)
    assert not errors, "\n".join(errors)


def test_c3_order_counters_equal_the_2026_12_01_run():
    bench = mdtables.find(tables(RUN), ["ID", "DRAM bytes read", "DRAM bytes written"])
    second = {}  # kernel -> row of its second launch (the later ID)
    for r in bench[1:]:
        second[r[1].strip("`")] = r
    mine = mdtables.find(chapter("c3.md"), ["kernel 与顺序", "显存读 MB"])
    assert mine, "content/c3.md §8.2 needs the Nsight Compute table of the six kernels"
    rows = {"拷贝 kernel，行优先": "copy_tiled_kernel", "拷贝 kernel，按列": "copy_order_kernel<ColumnMajorOrder>",
            "拷贝 kernel，对角": "copy_order_kernel<DiagonalOrder>",
            "[32][33]，行优先": "transpose_tile_kernel<PaddedTile, RowMajorOrder>",
            "[32][33]，按列": "transpose_tile_kernel<PaddedTile, ColumnMajorOrder>",
            "[32][33]，对角": "transpose_tile_kernel<PaddedTile, DiagonalOrder>"}
    pairs = []
    for k, b in rows.items():
        r = second[b]
        pairs += [(f"{k} / µs", cell(mine, k, "时间 µs"), round(mdtables.number(r[3]) / 1e3, 2)),
                  (f"{k} / read", cell(mine, k, "显存读 MB"), round(mdtables.number(r[4]) / 1e6, 1)),
                  (f"{k} / written", cell(mine, k, "显存写 MB"), round(mdtables.number(r[5]) / 1e6, 1))]
    errors = compare(pairs)
    assert not errors, "\n".join(errors)


def test_c2_instruction_counts_are_the_2026_12_01_run():
    bench = mdtables.find(tables(RUN), ["kernel (first launch)", "warp instructions per warp"])
    md = (ROOT / "content" / "c2.md").read_text(encoding="utf-8")
    quoted = [mdtables.number(r[3]) for r in bench[1:]] + [mdtables.number(bench[1][5]), mdtables.number(bench[2][5]),
                                                          mdtables.number(bench[3][5]), mdtables.number(bench[1][4])]
    missing = [q for q in quoted if f"{q:g}" not in md]
    assert not missing, f"content/c2.md should quote {missing} from {RUN.name}"


# ---- C5: the ladder table and the ncu table equal the project's H200 record -------------------------

C5 = BENCH / "h200-c5-2026-12-01.md"
C5_ROWS = {  # chapter row (exact first cell) -> the record's row (exact first cell)
    "拷贝 kernel，GB/s": "copy kernel, GB/s", "`cudaMemcpy`，占拷贝 kernel 的 %": "`cudaMemcpy`, % copy",
    "`torch.softmax`（本次运行），占拷贝 kernel 的 %": "`torch.softmax`, % copy",
    "`softmax_naive`": "`softmax_naive`", "`softmax_online`": "`softmax_online`",
    "`softmax_by_width`": "`softmax_by_width`", "`softmax_registers`": "`softmax_registers`",
    "`softmax_split`": "`softmax_split`", "`softmax_fast`，那次运行的配置": "`softmax_fast` as run (4b9e7a7)",
    "`softmax_fast`，12-01 调整后的配置": "`softmax_fast` retuned (see below)"}
C5_NCU = {"`online_kernel`（4096×8192）": "`online_kernel` 4096×8192 (2 reads)",
          "`online_kernel`（64×1048576）": "`online_kernel` 64×1048576",
          "`online_kernel`（1024×65536）": "`online_kernel` 1024×65536",
          "`online_kernel`（262144×128）": "`online_kernel` 262144×128",
          "`naive_kernel`（4096×8192，读三遍）": "`naive_kernel` 4096×8192 (3 reads)",
          "`block_rows_kernel<256, 4, 8>`（4096×8192，读一遍）": "`block_rows_kernel<256, 4, 8>` 4096×8192"}


def exact_row(table, key):
    rows = [r for r in table[1:] if r[0] == key]
    assert len(rows) == 1, f"no single row {key!r} in the table headed {table[0][0]!r}"
    return rows[0]


def _held_to_record(mine, bench, rows, what):
    assert mine and bench, f"the C5 {what} table (chapter §12) or the record's table is missing"
    assert mine[0][1:] == bench[0][1:], "the shapes differ"
    pairs = [(f"{key} / {shape}", mdtables.numbers(got), mdtables.numbers(want))
             for key, bkey in rows.items()
             for shape, got, want in zip(mine[0][1:], exact_row(mine, key)[1:], exact_row(bench, bkey)[1:])]
    errors = compare(pairs)
    assert not errors, "\n".join(errors)
    assert len(mine) == len(rows) + 1, f"a row of the chapter's {what} table is not held to the record"


def test_c5_ladder_equals_the_projects_run():
    mine = mdtables.find(chapter("c5.md"), ["4096×8192", "8192×4097"], first="写法（占拷贝 kernel 的 % / 是 torch.softmax 的几倍）")
    bench = mdtables.find(tables(C5), ["4096×8192", "8192×4097"], first="variant")
    assert mine and bench, "the C5 ladder table (chapter §12) or the record's ladder table is missing"
    assert mine[0][1:] == bench[0][1:], "the shapes differ"
    pairs = [(f"{key} / {shape}", mdtables.numbers(got), mdtables.numbers(want))
             for key, bkey in C5_ROWS.items()
             for shape, got, want in zip(mine[0][1:], exact_row(mine, key)[1:], exact_row(bench, bkey)[1:])]
    errors = compare(pairs)
    assert not errors, "\n".join(errors)


def test_c5_ncu_table_equals_the_projects_run():
    mine = mdtables.find(chapter("c5.md"), ["显存读 / x"])
    bench = mdtables.find(tables(C5), ["DRAM read / x"])
    pairs = [(key, mdtables.numbers(" ".join(exact_row(mine, key)[1:])),
              mdtables.numbers(" ".join(exact_row(bench, bkey)[1:4]))) for key, bkey in C5_NCU.items()]
    errors = compare(pairs)
    assert not errors, "\n".join(errors)


# ---- C5, 2026-12-02: the long-row table equals the record of that day's H200 runs ----------------

C5_LONG = BENCH / "h200-c5-2026-12-02.md"
C5_LONG_ROWS = {  # chapter row (exact first cell) -> the record's row (exact first cell)
    "分段、全局标记交换：`block_rows_kernel<512, 4, 16>`（原来的 `softmax_fast`）":
        "split, global-flag exchange: `block_rows_kernel<512, 4, 16>` (main's `softmax_fast`)",
    "同样的 block，不交换（`nowait`：结果错误，只计时）":
        "the same blocks without the exchange (`nowait`: wrong results, timed only)",
    "一簇一行：`cluster_rows_kernel<512, 16, 2>`": "a cluster a row: `cluster_rows_kernel<512, 16, 2>`",
    "一簇一行：`cluster_rows_kernel<256, 8, 8>`": "a cluster a row: `cluster_rows_kernel<256, 8, 8>`",
    "读两遍、第二遍从 L2（扫描里最好的配置）": "two reads, the second from L2 (the best configuration swept)",
    "每个 block 在寄存器里放两段（扫描里最好的配置）":
        "two segments held a block (pipelined, the best configuration swept)"}


def test_c5_long_rows_equal_the_2026_12_02_record():
    mine = mdtables.find(chapter("c5.md"), ["1024×65536", "64×1048576"], first="长行的写法（占拷贝 kernel 的 %，2026-12-02 扫描）")
    bench = mdtables.find(tables(C5_LONG), ["1024×65536", "64×1048576"], first="long-row version")
    assert mine and bench, "the C5 long-row table (chapter §12) or the record's table is missing"
    assert mine[0][1:] == bench[0][1:], "the shapes differ"
    pairs = [(f"{key} / {shape}", mdtables.numbers(got), mdtables.numbers(want))
             for key, bkey in C5_LONG_ROWS.items()
             for shape, got, want in zip(mine[0][1:], exact_row(mine, key)[1:], exact_row(bench, bkey)[1:])]
    errors = compare(pairs)
    assert not errors, "\n".join(errors)
    assert len(mine) == len(C5_LONG_ROWS) + 1, "a row of the chapter's long-row table is not held to the record"


C5_FINAL_ROWS = {"拷贝 kernel，GB/s": "copy kernel, GB/s", "`torch.softmax`，占拷贝 kernel 的 %": "`torch.softmax`, % copy",
                 "`softmax_fast`，那次运行的配置": "`softmax_fast` as run (39ea27a)",
                 "`softmax_fast`，现在的配置": "`softmax_fast` now"}


def test_c5_final_run_equals_the_2026_12_02_record():
    mine = mdtables.find(chapter("c5.md"), ["4096×8192", "8192×4097"],
                         first="`softmax_fast`，2026-12-02 最后一次运行（占拷贝 kernel 的 % / 是 torch.softmax 的几倍）")
    bench = mdtables.find(tables(C5_LONG), ["4096×8192", "8192×4097"], first="final run")
    assert mine and bench, "the C5 final-run table (chapter §12) or the record's table is missing"
    assert mine[0][1:] == bench[0][1:], "the shapes differ"
    pairs = [(f"{key} / {shape}", mdtables.numbers(got), mdtables.numbers(want))
             for key, bkey in C5_FINAL_ROWS.items()
             for shape, got, want in zip(mine[0][1:], exact_row(mine, key)[1:], exact_row(bench, bkey)[1:])]
    errors = compare(pairs)
    assert not errors, "\n".join(errors)
    assert len(mine) == len(C5_FINAL_ROWS) + 1, "a row of the chapter's final-run table is not held to the record"


# ---- C5, 2026-12-02 (later): the persistent-block table equals the softsplit record --------------

C5_SPLIT = BENCH / "h200-c5-2026-12-02-split.md"
C5_SPLIT_ROWS = {  # chapter row (exact first cell) -> the record's row (exact first cell)
    "分段、全局标记交换：`block_rows_kernel<512, 4, 16>`（`softmax_fast`）":
        "split, global-flag exchange: `block_rows_kernel<512, 4, 16>` (`softmax_fast`)",
    "流水线，每轮两次屏障，每块 16384 个 float":
        "pipeline, two barriers a round, 16384-float chunks (`stream-2bar T512 v8 a1 l1`)",
    "流水线，每轮一次屏障，每块 4096 个 float":
        "pipeline, one barrier a round, 4096-float chunks (`stream T256 v4 a1 l4`)",
    "流水线，每轮一次屏障，每块 8192 个 float，LAG = 3":
        "pipeline, one barrier a round, 8192-float chunks, LAG 3 (`stream T512 v4 a1 l3`)",
    "y 由第二遍从 L2 读 x 算出（x 在 L2 里留 LAG 行）":
        "y from a second read of x from L2 (`stream-reread T512 v8 a1 l2`)"}


def test_c5_persistent_pipelines_equal_the_softsplit_record():
    _held_to_record(mdtables.find(chapter("c5.md"), ["1024×65536", "64×1048576"],
                                  first="常驻 block 的流水线（占拷贝 kernel 的 %，softsplit 第 2 次运行）"),
                    mdtables.find(tables(C5_SPLIT), ["1024×65536", "64×1048576"], first="persistent-block version, softsplit run 2"),
                    C5_SPLIT_ROWS, "persistent-block")


# ---- C5, 2026-12-02 (later still): the cluster / split-smem table equals the softcluster record ---

C5_CLUSTER = BENCH / "h200-c5-2026-12-02-cluster.md"
C5_CLUSTER_ROWS = {  # chapter row (exact first cell) -> the record's row (exact first cell)
    "`softmax_fast`（65536 列：`smem_rows_kernel<512, 16, 1>`；更长：`block_rows_kernel<512, 4, 16>`）":
        "`softmax_fast` (65536 columns: `smem_rows_kernel<512, 16, 1>`; longer: `block_rows_kernel<512, 4, 16>`)",
    "分段，段的一部分放在共享内存，每段 32768 个 float，每个 SM 2 个 block":
        "split, part of the segment in shared memory, 32768-float segments, 2 blocks a SM "
        "(`split-smem T1024 r2 s6 seg32768 minb2`)",
    "同上，每段 16384 个 float，每个 SM 4 个 block":
        "the same, 16384-float segments, 4 blocks a SM (`split-smem T512 r2 s6 seg16384 minb4`)",
    "一簇 16 个 block 一行，整段放在片上，常驻的簇依次走过各行":
        "a cluster of 16 blocks a row, the whole segment on chip, persistent clusters (`cluster T512 cs16 r10 h22 p6`)",
    "同上，每个 SM 2 个 block，段的大部分从 L2 再读一遍":
        "the same, 2 blocks a SM, most of the segment read again from L2 (`cluster T512 cs16 r0 h12 p0`)"}


def test_c5_cluster_table_equals_the_softcluster_record():
    _held_to_record(mdtables.find(chapter("c5.md"), ["1024×65536", "64×1048576"],
                                  first="簇与每个 SM 多个 block（占拷贝 kernel 的 %，softcluster 第 2 次运行）"),
                    mdtables.find(tables(C5_CLUSTER), ["1024×65536", "64×1048576"],
                                  first="cluster and split-smem versions, softcluster run 2"),
                    C5_CLUSTER_ROWS, "cluster")


# ---- C5, 2026-12-02 (afternoon): the task-kernel tables equal the tasks record -------------------

C5_TASKS = BENCH / "h200-c5-2026-12-02-tasks.md"
C5_TASKS_ROWS = {  # chapter row (exact first cell) -> the record's row (exact first cell)
    "`softmax_fast`（65536 列：`smem_rows_kernel<512, 16, 1>`；更长：`tasks_rows_kernel<512, 8>`）":
        "`softmax_fast` (65536 columns: `smem_rows_kernel<512, 16, 1>`; longer: `tasks_rows_kernel<512, 8>`)",
    "`tasks_rows_kernel<512, 8>` 本身（`lag` 取 L2 的五分之一）": "`tasks_rows_kernel<512, 8>` alone (lag: a fifth of L2)",
    "同样的算法，基准里 `lag` 固定为 3 行": "the same in the bench, lag 3 rows (`l2tasks p2 T512 v8 piece16384 lag3`)",
    "诊断：写出不等自己的行（结果是错的）": "DIAGNOSTIC: the same, writes do not wait for their row",
    "数据落在共享内存，每个 SM 3 个 block":
        "pieces landing in shared memory, 3 blocks a SM (`l2smem T512 v8 piece16384 lag3 occ3`)",
    "常驻 block 的流水线，等待的那一行放在寄存器里": "persistent pipeline, the waiting row in registers (`reg T512 v8 a1`)",
    "常驻 block 的流水线，成批读各部分（此前最好）":
        "persistent pipeline, batched part reads (`stream-2bar-poll T512 v8 chunk16384 a1 l1`)",
    "分段、全局标记交换：`block_rows_kernel<512, 4, 16>`（原来的 `softmax_fast`）":
        "split, global-flag exchange (`block_rows_kernel<512, 4, 16>`, `softmax_fast` before)"}
C5_TASKS_JUDGE_ROWS = {"拷贝 kernel，GB/s": "copy kernel, GB/s",
                       "`torch.softmax`，占拷贝 kernel 的 %": "`torch.softmax`, % copy",
                       "`softmax_fast`": "`softmax_fast`"}
C5_SHAPES = ["4096×8192", "16384×16384", "65536×1024", "262144×128", "1024×65536", "64×1048576", "8192×4097"]


def test_c5_task_kernel_tables_equal_the_tasks_record():
    _held_to_record(mdtables.find(chapter("c5.md"), ["1024×65536", "64×1048576"],
                                  first="不留在片上的任务（占拷贝 kernel 的 %，tasks 第 7 次运行）"),
                    mdtables.find(tables(C5_TASKS), ["1024×65536", "64×1048576"],
                                  first="run 7 (% of the copy kernel, two samples)"),
                    C5_TASKS_ROWS, "task-kernel")
    _held_to_record(mdtables.find(chapter("c5.md"), C5_SHAPES,
                                  first="`softmax_fast`，判题程序，tasks 第 12 次运行（占拷贝 kernel 的 % / 是 torch.softmax 的几倍）"),
                    mdtables.find(tables(C5_TASKS), C5_SHAPES,
                                  first="judge, run 12 (% of the copy kernel / × torch.softmax)"),
                    C5_TASKS_JUDGE_ROWS, "task-kernel judge")


C5_TASKS_PARTS_ROWS = {  # the diagnostics of tasks run 13: chapter row (exact first cell) -> the record's row
    "`tasks_rows_kernel<512, 8>`（参考实现，什么都不少）": "`tasks_rows_kernel<512, 8>` (the reference's, everything)",
    "不算指数（`t2-diag2`，结果错误）": "no exponentials (`t2-diag2`, wrong results)",
    "写出不等自己的行（`t2-diag1`，结果错误）": "writes do not wait for their row (`t2-diag1`, wrong results)",
    "不等，写出也不再读 x（`t2-diag5`，结果错误）":
        "no wait, and the write does not read x again (`t2-diag5`, wrong results)",
    "同样的 block 和票号，只把 x 拷到 y（`taskcopy T512 v4`）":
        "the same blocks and tickets copying x to y (`taskcopy T512 v4`)",
    "……再从 L2 把 12 MB 之前的 x 读一遍（`taskcopy-reread T512 v4`）":
        "… and reading x a second time from L2, 12 MB back (`taskcopy-reread T512 v4`)",
    "每行 64 块里最后 8 块留在寄存器里，不再读（`hy … hold8`）":
        "the last 8 of a row's 64 pieces held in registers, not read again (`hy … hold8`)",
    "每一块都留着（`hy … hold64`）": "every piece held (`hy … hold64`)",
}


def test_c5_task_kernel_diagnostics_equal_the_tasks_record():
    _held_to_record(mdtables.find(chapter("c5.md"), ["64×1048576"],
                                  first="拆开看任务 kernel（占拷贝 kernel 的 %，tasks 第 13 次运行，两次采样）"),
                    mdtables.find(tables(C5_TASKS), ["64×1048576"], first="run 13 (% of the copy kernel, two samples)"),
                    C5_TASKS_PARTS_ROWS, "task-kernel diagnostics")
