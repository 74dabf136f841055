"""The G1 figures' strings, (zh, en) by key, for the web catalogue (drills/web/i18n.py today)."""

STRINGS = {
    "fl_title": ("mma.m16n8k16 的片段：哪个 lane 拿哪个元素", "The mma.m16n8k16 fragments: which lane holds which element"),
    "fl_lane": ("lane", "Lane"),
    "fl_pick": ("格子里的数字是持有这个元素的 lane；点一个格子，或输入 lane 号，看它持有的全部元素。",
                "Each cell shows the lane that holds the element; click a cell, or type a lane, to see all it holds."),
    "fl_summary": ("lane {lane}（g = {g}，t = {t}）持有：", "Lane {lane} (g = {g}, t = {t}) holds:"),
    "sw_title": ("16 字节块落在哪一组 bank：swizzle 前后", "Which bank group each 16-byte chunk falls in: before and after the swizzle"),
    "sw_tile": ("tile", "Tile"),
    "sw_layout": ("排布", "Layout"),
    "sw_plain": ("行主序", "row-major"),
    "sw_xor": ("XOR swizzle", "XOR swizzle"),
    "sw_pick": ("格子的颜色是它所在的 bank 组（每组 4 个 bank），数字是它装的逻辑块号；点一个格子，看 ldmatrix 读这个逻辑块的 8 行。",
                "A cell's colour is its bank group (4 banks each) and its number the logical chunk it holds; click a cell to "
                "see ldmatrix read that logical chunk of 8 rows."),
    "sw_summary": ("ldmatrix 读逻辑块 {c} 的 8 行：最多 {w} 个块落在同一组 bank，要 {w} 个 wavefront。",
                   "ldmatrix reads logical chunk {c} of 8 rows: at most {w} chunks fall in one bank group, {w} wavefronts."),
    "sw_free": ("没有冲突。", "No conflict."),
    "sw_conflict": ("{w} 路冲突。", "{w}-way conflict."),
}
