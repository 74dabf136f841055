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
    scalar_store_efficiency: float  # DRAM efficiency of 128-byte store requests vs 512-byte ones
    l2_sectors_per_s: float        # whole 32-byte sectors between L1 and L2
    l2_partial_store_sectors_per_s: float  # store sectors written in part (uncoalesced stores)
    launch_seconds: float          # per kernel launch, back to back on one stream
    # ---- latencies in SM cycles (the simulator's critical path, engine.h Latencies) ----
    latency: dict = field(default_factory=dict)
    smooth: float = 6.0            # exponent of the soft maximum that joins the bounds
    sources: dict = field(default_factory=dict)

    def latency_env(self) -> str:
        """DRILLS_SIM_LATENCY for the simulator's runtime."""
        return ",".join(f"{k}={v}" for k, v in self.latency.items())


H200 = Gpu(
    name="H200",
    sms=132,
    clock_hz=1.98e9,
    max_threads_per_sm=2048,
    max_blocks_per_sm=32,
    registers_per_sm=65536,
    register_unit=256,
    shared_per_sm=228 * 1024,
    shared_reserved_per_block=1024,
    issue_per_sm_clock=4.0,
    shared_wavefronts_per_sm_clock=1.0,
    dram_read_bytes_per_s=4.36e12,
    dram_write_cost=1.05,
    scalar_store_efficiency=0.69,
    l2_sectors_per_s=172e9,
    l2_partial_store_sectors_per_s=68e9,
    launch_seconds=2e-6,
    latency={"alu": 5, "sfu": 20, "shared": 30, "global": 1500, "warp": 25, "barrier": 20, "loads": 8},
    smooth=6.0,
    sources={
        "sms": "132 SMs: cudaGetDeviceProperties on the H200 (sim/runtime/device_model.cpp)",
        "clock_hz": "1980 MHz: nvidia-smi clocks.max.sm on the H200, and the clock the C3 runs found "
                    "(benchmarks/h200-c3-2026-11-29.md)",
        "max_threads_per_sm": "CC 9.0: 2048 threads, 32 blocks, 65536 registers per SM; registers "
                              "allocated per warp in units of 256",
        "shared_per_sm": "CC 9.0: 228 KB per SM, 227 KB per block, 1 KB reserved per resident block",
        "issue_per_sm_clock": "4 warp schedulers per SM, one instruction each per clock",
        "shared_wavefronts_per_sm_clock": "one shared-memory wavefront per SM per clock (128 bytes)",
        "dram_read_bytes_per_s": "4.36 TB/s: reduce_sum reads 2^30 bytes in 0.2465 ms (content/c2.md §10)",
        "dram_write_cost": "1.05: cudaMemcpy (0.509 ms, 2^30 read + 2^30 written) and vector_add_vec4 "
                           "(0.746 ms, 2^31 + 2^30) against the read rate (content/c1.md §9, c2.md §10)",
        "scalar_store_efficiency": "0.69: scalar (128-byte) store requests reach 0.71 of the float4 "
                                   "rate in copy_tiled at 8192^2 (0.1527 ms) and 0.66 in "
                                   "vector_add_grid_stride (0.885 ms), while scalar loads alone lose "
                                   "nothing (reduce_grid_stride, 99.6% of memcpy)",
        "l2_sectors_per_s": "not binding for any kernel here; 5.5 TB/s of 32-byte sectors",
        "l2_partial_store_sectors_per_s": "68e9/s: transpose_naive at 8192^2 writes 67.1 M sectors in "
                                          "part (4 of 32 bytes) in 0.998 ms (h200-c3-2026-11-29.md)",
        "launch_seconds": "2 us per launch in a stream of launches (an estimate; C2's ladder has 4)",
        "latency.global": "1500 cycles: a load from DRAM under a streaming load, from C2's ladder "
                          "(reduce_sequential 1.147 ms = 993 waves of 8 blocks per SM)",
        "latency.shared": "30 cycles: LDS on Hopper (the ladder's reduction rounds)",
        "latency.alu": "5 cycles: FFMA/IADD3 dependent issue on Hopper",
        "latency.loads": "8 global loads in flight per warp: ptxas unrolls streaming loops 4 deep "
                         "(SASS of add_grid_stride_kernel, sim/model/sass_corpus.py)",
        "smooth": "6: the soft maximum that joins DRAM and latency bounds for vector_add (0.932 ms)",
    },
)

GPUS = {"H200": H200}
