"""The GPUs the time model knows, with where every number comes from.

Measured numbers come from this project's runs on one NVIDIA H200 (driver 580.159.04, CUDA 13.0,
clocks as found), recorded under benchmarks/: h200-c3-2026-11-29.md (C3 table), the C1 and C2
tables of content/c1.md and content/c2.md (2026-11-29, `judge.py test 71/77 --solution`), and
benchmarks/h200/fidelity.sh. Architecture numbers are those of compute capability 9.0 (the CUDA
programming guide's feature table) and the simulator's device model (sim/runtime/device_model.cpp).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Gpu:
    name: str
    # ---- the machine (compute capability 9.0; device properties of the H200) ----
    sms: int                       # streaming multiprocessors
    clock_hz: float                # SM clock while the kernels run
    max_threads_per_sm: int
    max_blocks_per_sm: int
    registers_per_sm: int
    register_unit: int             # registers are allocated per warp in units of this many
    shared_per_sm: int             # bytes of shared memory an SM can give its blocks
    shared_reserved_per_block: int  # bytes the system takes per resident block
    # ---- throughputs ----
    issue_per_sm_clock: float      # warp instructions issued per SM per clock (4 schedulers)
    shared_wavefronts_per_sm_clock: float
    dram_read_bytes_per_s: float   # streaming reads, full sectors
    dram_write_cost: float         # a byte written costs this many bytes of read time
    l2_write_back_bytes: float     # the last bytes a kernel writes stay dirty in L2 after it ends
    scattered_store_efficiency: float  # DRAM write efficiency when neighbouring blocks store far apart
    l2_sectors_per_s: float        # whole 32-byte sectors between L1 and L2
    l2_partial_store_sectors_per_s: float  # extra partial store sectors (uncoalesced stores): read-modify-write
    launch_seconds: float          # per kernel launch, back to back on one stream
    call_seconds: float            # once per timed call (CUDA events around a host function)
    # ---- latencies in SM cycles (the simulator's critical path, engine.h Latencies) ----
    latency: dict = field(default_factory=dict)
    smooth: float = 6.0            # exponent of the soft maximum that joins the bounds
    block_tail: float = 0.0        # a block of 8w warps takes (1 + block_tail * log2 w) times its critical path
    sources: dict = field(default_factory=dict)

    def latency_env(self) -> str:
        """DRILLS_SIM_LATENCY for the simulator's runtime."""
        return ",".join(f"{k}={v}" for k, v in self.latency.items())


H200 = Gpu(
    name="H200",
    sms=132,
    clock_hz=1.95e9,
    max_threads_per_sm=2048,
    max_blocks_per_sm=32,
    registers_per_sm=65536,
    register_unit=256,
    shared_per_sm=228 * 1024,
    shared_reserved_per_block=1024,
    issue_per_sm_clock=4.0,
    shared_wavefronts_per_sm_clock=0.85,
    dram_read_bytes_per_s=4.49e12,
    dram_write_cost=1.09,
    l2_write_back_bytes=21e6,
    scattered_store_efficiency=0.70,
    l2_sectors_per_s=218e9,
    l2_partial_store_sectors_per_s=107e9,
    launch_seconds=1.5e-6,
    call_seconds=6.5e-6,
    latency={"alu": 5, "sfu": 20, "shared": 30, "global": 1400, "warp": 12, "barrier": 20, "loads": 8},
    smooth=3.0,
    block_tail=0.2,
    sources={
        "sms": "132 SMs: cudaGetDeviceProperties on the H200 (sim/runtime/device_model.cpp)",
        "clock_hz": "1.95 GHz: ncu sm__cycles_elapsed.avg.per_second of the perf-shape kernels, 1.91-1.99 GHz "
                    "(benchmarks/h200-calibration-2026-12-01.md); nvidia-smi's maximum is 1980 MHz",
        "max_threads_per_sm": "CC 9.0: 2048 threads, 32 blocks, 65536 registers per SM; registers "
                              "allocated per warp in units of 256",
        "shared_per_sm": "CC 9.0: 228 KB per SM, 227 KB per block, 1 KB reserved per resident block",
        "issue_per_sm_clock": "4 warp schedulers per SM, one instruction each per clock",
        "shared_wavefronts_per_sm_clock": "0.85: one wavefront per SM per clock at best; the 32-way-conflicted "
                                          "tiles reach 0.81-0.87 of it (ncu durations of transpose_tiled_unpadded "
                                          "and the held-out [32][32] tile, h200-calibration-2026-12-01.md)",
        "dram_read_bytes_per_s": "4.49 TB/s: reduce_sum's grid-stride kernel reads 1073.8 MB from DRAM in "
                                 "239.3 us (ncu dram__bytes_read, gpu__time_duration, 2026-12-01)",
        "dram_write_cost": "1.09: copy_vec4 (1073.8 MB read + 1050.7 MB written in 499.1 us) and "
                           "vector_add_vec4 (2147.5 + 1057.5 MB in 730.0 us) against the read rate (ncu, 2026-12-01)",
        "l2_write_back_bytes": "21 MB: DRAM bytes written fall 20-23 MB short of the bytes stored in every "
                               "streaming kernel (8192^2 transposes, 2^28 copies): the last writes stay dirty in "
                               "the 60 MB L2 when the kernel ends (ncu dram__bytes_write, 2026-12-01)",
        "scattered_store_efficiency": "0.70 for 128 bytes a page, 1 - 0.30 x 128 / bytes a page above: "
                                      "transpose_tiled at 8192^2 (row-major launch: each block writes 128 bytes "
                                      "to 32 pages the next block does not touch) takes 145.9 us against 119.9 us "
                                      "of DRAM traffic; the held-out float4 64x64 tile (256 bytes a page) 131.1 us "
                                      "(0.84; the formula gives 0.85); the column-major launch is not slowed (ncu, 2026-12-01)",
        "block_tail": "0.2: the 1024-thread copy (32 warps a block, 2 blocks an SM) takes 253.1 us, 1.4 times "
                      "its latency bound; checked on the 1024-thread [32][33] tile (280.3 us, ncu 2026-12-01)",
        "l2_sectors_per_s": "218e9/s: ncu lts__t_sectors (reads + writes, fills included) over duration, "
                            "divided by lts__throughput, 204-222 G/s for the streaming kernels (2026-12-01)",
        "l2_partial_store_sectors_per_s": "107e9/s: transpose_naive at 8192^2 writes 67.1 M sectors in part "
                                          "(4 of 32 bytes each) in 973.2 us, of which 385 us are its 83.9 M sector "
                                          "operations at the full rate (ncu, 2026-12-01)",
        "launch_seconds": "1.5 us a launch and 6.5 us a timed call: CUDA-event medians minus ncu kernel "
                          "durations, 8-9 us for one-launch calls, 8 us for C2's four-launch ladder (2026-12-01)",
        "latency.global": "1500 cycles: a load from DRAM under a streaming load, from C2's ladder "
                          "(reduce_sequential: 1130.8 us = 993 waves of 8 blocks per SM, ncu)",
        "latency.shared": "30 cycles: LDS on Hopper (the ladder's reduction rounds)",
        "latency.warp": "12 cycles: a shuffle and its add, from reduce_warp_shuffle (437.9 us, ncu)",
        "latency.alu": "5 cycles: FFMA/IADD3 dependent issue on Hopper",
        "latency.loads": "8 global loads in flight per warp: ptxas unrolls streaming loops 4 deep "
                         "(SASS of add_grid_stride_kernel, sim/model/sass_corpus.py)",
        "smooth": "3: the soft maximum that joins the latency bound and the slowest pipeline, from "
                  "copy_tiled (141.5 us: DRAM 124.9, two dependent DRAM round trips a thread) and "
                  "vector_add (923.3 us, ncu)",
    },
)

GPUS = {"H200": H200}
