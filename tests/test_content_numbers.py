"""The numbers a chapter quotes equal the measured tables under benchmarks/ (they run in every clone).

Run: python -m pytest -q tests/test_content_numbers.py

The Chinese chapter is compared here; test_content.py keeps the English twin's tables and numbers
equal to the Chinese ones, so both languages are covered.
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
