"""drills_sim_replay end to end: a program run with DRILLS_SIM_OPLOG, its op log replayed from the
library file in a separate process, and forged or damaged logs that must be refused (exit 2, one
line on stderr), never crash the replay or pass for a run."""
import json
import os
import re
import struct
import subprocess
from pathlib import Path

import pytest

REPLAY = os.environ.get("DRILLS_SIM_REPLAY", "")
PROGRAM = os.environ.get("DRILLS_SIM_REPLAY_PROGRAM", "")
LIBRARY = os.environ.get("DRILLS_SIM_REPLAY_LIBRARY", "")
STUB = os.environ.get("DRILLS_SIM_ENGINE_STUB") == "1"
pytestmark = pytest.mark.skipif(not (REPLAY and PROGRAM and LIBRARY) or STUB,
                                reason="needs the CMake build's replay, program and library")

MAGIC = b"DRLOG1\0\0"
ALLOC, FREE, WRITE, COPY, MEMSET, LAUNCH, MARK, ATTR, TRUNCATED, MODULE, RESET = range(1, 12)
N, BLOCK, BLOCKS, BIAS = 300, 128, 3, 0.5
ENV = dict(os.environ, DRILLS_SIM_THREADS="1", DRILLS_SIM_WATCHDOG="30")


def run_program(tmp_path, *args, record_only=False):
    tag = "record_only_" if record_only else ""
    log, report, out = (tmp_path / f"{tag}op.log", tmp_path / f"{tag}program.jsonl",
                        tmp_path / f"{tag}out.bin")
    env = dict(ENV, DRILLS_SIM_OPLOG=str(log), DRILLS_SIM_REPORT=str(report))
    if record_only:
        env["DRILLS_SIM_RECORD_ONLY"] = "1"
    proc = subprocess.run([PROGRAM, str(out), *args], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    addrs = {k: int(v, 0) for k, v in re.findall(r"(\w+)=(0x[0-9a-f]+)", proc.stdout)}
    return log, report, out, addrs, proc


def replay(tmp_path, log, *args, name="replay"):
    report = tmp_path / f"{name}.jsonl"
    proc = subprocess.run([REPLAY, LIBRARY, str(log), "--report", str(report), *args],
                          capture_output=True, text=True, env=ENV, timeout=120)
    return proc, report


def records(path):
    """The op log as (type, payload) pairs: the format of sim/runtime/oplog_format.h."""
    data = Path(path).read_bytes()
    assert data[:8] == MAGIC
    at, out = 8, []
    while at < len(data):
        kind, zero, length = struct.unpack_from("<IIQ", data, at)
        assert zero == 0
        out.append((kind, data[at + 16:at + 16 + length]))
        at += 16 + length
    assert at == len(data)
    return out


def write_log(path, recs):
    with open(path, "wb") as f:
        f.write(MAGIC)
        for kind, payload in recs:
            f.write(struct.pack("<IIQ", kind, 0, len(payload)) + payload)
    return path


def launches(report):
    out = []
    for line in Path(report).read_text().splitlines():
        event = json.loads(line)
        if event["event"] == "launch":
            event.pop("seconds")
            out.append(event)
    return out


def floats(b):
    return list(struct.unpack(f"<{len(b) // 4}f", b))


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def test_replay_gives_the_programs_launch_records_and_bytes(tmp_path):
    log, report, out, a, _ = run_program(tmp_path)
    kinds = [k for k, _ in records(log)]
    for kind in (ALLOC, WRITE, COPY, MEMSET, LAUNCH, MARK, MODULE, FREE, ATTR):
        assert kind in kinds
    proc, replayed, dumped = replay_and_dump(tmp_path, log, a)
    assert proc.returncode == 0, proc.stderr
    original = launches(report)
    scale, block_sum = "scale_add(float const*, float*, int, float)", "block_sum(float const*, float*, int)"
    assert [l["kernel"] for l in original] == [scale, block_sum, scale, scale, scale]
    assert launches(replayed) == original   # counters, lines, samples, errors: all of it
    assert original[0]["metrics"]["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] > 0
    assert dumped == out.read_bytes()[:len(dumped)]
    y2 = floats(dumped[(N + BLOCKS) * 4:(2 * N + BLOCKS) * 4])
    y3 = floats(dumped[(2 * N + BLOCKS) * 4:])
    # the pinned input was filled by host stores after its ALLOC: only the WRITE before the launch
    # carries it; the kernel's results in pinned memory and the host store over one of them too
    assert y2 == [f32(-float(i) + BIAS) for i in range(N)]
    assert y3 == [f32(f32(3.3) + BIAS) if i == 7 else f32(y2[i] + 2 * BIAS) for i in range(N)]
    summary = json.loads(replayed.read_text().splitlines()[-1])
    assert summary == {"event": "replay", "records": len(kinds), "launches": 5,
                       "skipped_after_fault": 0, "sticky": "", "stopped_at": "end"}


def replay_and_dump(tmp_path, log, a, name="replay"):
    """Replays `log` and returns (process, report, the bytes of y, sums, y2 and y3 at the end)."""
    regions = [("y", N), ("sums", BLOCKS), ("y2", N), ("y3", N)]
    args = []
    for region, count in regions:
        args += ["--dump", f"{a[region]:#x}={count * 4}={tmp_path / (name + region)}"]
    proc, report = replay(tmp_path, log, *args, name=name)
    dumped = b"".join((tmp_path / (name + region)).read_bytes() for region, _ in regions) \
        if proc.returncode == 0 else b""
    return proc, report, dumped


def test_a_record_only_run_replays_as_a_normal_run(tmp_path):
    log, report, out, a, _ = run_program(tmp_path)
    rec_log, rec_report, _, rec_a, _ = run_program(tmp_path, record_only=True)
    assert rec_a == a   # the same allocations at the same addresses
    assert launches(rec_report) == []   # nothing ran in the program
    proc, replayed, dumped = replay_and_dump(tmp_path, rec_log, a, name="rec")
    assert proc.returncode == 0, proc.stderr
    normal, recorded = launches(report), launches(replayed)
    assert recorded[:2] == normal[:2]
    # pinned memory lies at other host addresses in another process: the sampled lanes' addresses
    # differ there, and nothing else
    without_samples = lambda ls: [dict(l, lines=[{k: v for k, v in line.items() if k != "sample"}
                                                 for line in l["lines"]]) for l in ls]
    assert without_samples(recorded) == without_samples(normal)
    assert dumped == out.read_bytes()[:len(dumped)]


def test_other_inputs_after_a_mark_give_the_kernels_result_on_them(tmp_path):
    log, _, _, a, _ = run_program(tmp_path)
    x = [float((7 * i) % 11) - 5.0 for i in range(N)]
    (tmp_path / "x").write_bytes(struct.pack(f"<{N}f", *x))
    proc, report = replay(tmp_path, log, "--after-mark", "inputs", "--set", f"{a['x']}={tmp_path / 'x'}",
                          "--poison", f"{a['y']}={N * 4}", "--until-mark", "done",
                          "--dump", f"{a['y']}={N * 4}={tmp_path / 'y'}",
                          "--dump", f"{a['sums']}={BLOCKS * 4}={tmp_path / 's'}")
    assert proc.returncode == 0, proc.stderr
    y = floats((tmp_path / "y").read_bytes())
    assert y == [f32(2.0 * v + BIAS) for v in x]
    sums = floats((tmp_path / "s").read_bytes())
    for b in range(BLOCKS):
        assert sums[b] == pytest.approx(sum(y[b * BLOCK:(b + 1) * BLOCK]), rel=1e-5)
    assert len(launches(report)) == 2   # stopped at "done": the pinned launch is not replayed


def test_a_race_is_reported_by_the_replay_too_and_a_reset_clears_it(tmp_path):
    log, report, _, _, proc = run_program(tmp_path, "race")
    assert "sync=cudaErrorLaunchFailure" in proc.stdout
    ran, racy, after_reset = launches(report)
    assert racy["errors"][0]["kind"] == "shared-race" and after_reset["errors"] == []
    assert RESET in [k for k, _ in records(log)]
    proc, replayed = replay(tmp_path, log)
    assert proc.returncode == 0, proc.stderr
    assert launches(replayed) == [ran, racy, after_reset]
    assert json.loads(replayed.read_text().splitlines()[-1])["sticky"] == ""


def test_launches_after_a_fault_are_not_run(tmp_path):
    log, _, _, _, _ = run_program(tmp_path, "race")
    recs = records(log)
    reset = recs.index((RESET, b""))
    launch = next(r for r in recs if r[0] == LAUNCH)
    proc, report = replay(tmp_path, write_log(tmp_path / "more.log", recs[:reset] + [launch]))
    assert proc.returncode == 0, proc.stderr
    assert len(launches(report)) == 2
    summary = json.loads(report.read_text().splitlines()[-1])
    assert summary["skipped_after_fault"] == 1 and summary["sticky"] == "cudaErrorLaunchFailure"
    assert "1 launches after a kernel fault were not run" in proc.stderr


def test_the_dynamic_shared_memory_attribute_is_replayed(tmp_path):
    log, report, _, _, _ = run_program(tmp_path)
    recs = records(log)
    assert launches(report)[1]["errors"] == []   # 50 KiB of dynamic shared memory, allowed by ATTR
    proc, replayed = replay(tmp_path, write_log(tmp_path / "no_attr.log", [r for r in recs if r[0] != ATTR]))
    assert proc.returncode == 0, proc.stderr
    refused = launches(replayed)[1]
    assert refused["errors"][0]["kind"] == "launch-configuration"
    assert "cudaFuncAttributeMaxDynamicSharedMemorySize" in refused["errors"][0]["message"]


def forged(tmp_path, recs, name):
    return replay(tmp_path, write_log(tmp_path / f"{name}.log", recs), name=name)


def assert_refused(proc, *needles):
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("drills_sim_replay: "), proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def launch_payload(name, params, module=0, grid=(1, 1, 1), block=(32, 1, 1), shared=0):
    b = struct.pack("<I", len(name)) + name + struct.pack("<6IQI", *grid, *block, shared, len(params))
    for p in params:
        b += struct.pack("<I", len(p)) + p
    return b + struct.pack("<I", module)


def test_forged_and_damaged_logs_are_refused(tmp_path):
    log, _, _, a, _ = run_program(tmp_path)
    recs = records(log)
    data = log.read_bytes()
    first_launch = recs.index(next(r for r in recs if r[0] == LAUNCH))
    before = recs[:first_launch]

    # cut inside a record header, and inside a payload
    cut = tmp_path / "cut.log"
    cut.write_bytes(data[:8 + 10])
    assert_refused(replay(tmp_path, cut, name="cut1")[0], "record 1", "header")
    cut.write_bytes(data[:len(data) - 5])
    assert_refused(replay(tmp_path, cut, name="cut2")[0], f"record {len(recs)}", "ends inside")
    # not an op log at all
    (tmp_path / "junk.log").write_bytes(b"\x7fELF" + bytes(100))
    assert_refused(replay(tmp_path, tmp_path / "junk.log", name="junk")[0], "DRLOG1")

    assert_refused(forged(tmp_path, before + [(99, b"")], "type")[0],
                   f"record {len(before) + 1}", "unknown record type 99")
    huge = tmp_path / "huge.log"
    huge.write_bytes(MAGIC + struct.pack("<IIQ", WRITE, 0, 1 << 62) + bytes(64))
    assert_refused(replay(tmp_path, huge, name="huge")[0], "record 1", "payload of")
    assert_refused(forged(tmp_path, before + [(WRITE, struct.pack("<Q", 0x1000) + b"abcd")], "write")[0],
                   f"record {len(before) + 1}: WRITE to 0x1000", "outside any allocation")
    # one byte past the end of y (1200 bytes)
    past = struct.pack("<Q", a["y"] + N * 4 - 3) + b"abcd"
    assert_refused(forged(tmp_path, before + [(WRITE, past)], "past")[0], "outside any allocation")
    assert_refused(forged(tmp_path, before + [(COPY, struct.pack("<QQQ", a["y"], a["x"], 1 << 40))], "copy")[0],
                   "COPY", "outside any allocation")
    assert_refused(forged(tmp_path, before + [(FREE, struct.pack("<Q", a["y"] + 4))], "free")[0],
                   "FREE", "not the start of a live allocation")
    assert_refused(forged(tmp_path, before + [(ALLOC, struct.pack("<QQII", a["y"] + 8, 16, 0, 0))], "overlap")[0],
                   "ALLOC", "overlapping")
    ptr = struct.pack("<Q", a["x"])
    unknown = launch_payload(b"_Z7no_suchPf", [ptr])
    assert_refused(forged(tmp_path, before + [(LAUNCH, unknown)], "unknown")[0],
                   f"record {len(before) + 1}: LAUNCH of _Z7no_suchPf")
    kind, good = recs[first_launch]
    name = good[4:4 + struct.unpack_from("<I", good)[0]]
    assert name.startswith(b"_Z9scale_add")
    right = launch_payload(name, [ptr, ptr, struct.pack("<i", N), struct.pack("<f", 2.0)])
    assert forged(tmp_path, before + [(LAUNCH, right)], "right")[0].returncode == 0
    wrong = launch_payload(name, [ptr, ptr, struct.pack("<i", N)])
    assert_refused(forged(tmp_path, before + [(LAUNCH, wrong)], "params")[0],
                   "with parameters of 8,8,4 bytes; the kernel's PTX has 8,8,4,4")
    assert_refused(forged(tmp_path, before + [(LAUNCH, launch_payload(name, [], module=7))], "module")[0],
                   "module 7 was never loaded")
    assert_refused(forged(tmp_path, before + [(LAUNCH, good + b"x")], "long")[0], "1 bytes too many")
    assert_refused(forged(tmp_path, before + [(LAUNCH, good[:20])], "short")[0], "ends early")
    assert_refused(forged(tmp_path, before + [(TRUNCATED, b"")], "truncated")[0], "TRUNCATED")
    assert_refused(forged(tmp_path, [(MODULE, struct.pack("<IIQQ", 0, 0, 12345, 10))], "ptx")[0],
                   "no fat binary", "holds that PTX")
    assert_refused(forged(tmp_path, before + [(MARK, struct.pack("<I", 1 << 30))], "mark")[0],
                   "a text of 1073741824 bytes")


def test_marks_set_and_dump_are_checked(tmp_path):
    log, _, _, a, _ = run_program(tmp_path)
    (tmp_path / "big").write_bytes(bytes(N * 4 + 4))
    proc, _ = replay(tmp_path, log, "--after-mark", "inputs", "--set", f"{a['x']}={tmp_path / 'big'}")
    assert_refused(proc, "--set", "do not fit in one live allocation")
    proc, _ = replay(tmp_path, log, "--after-mark", "nowhere", "--poison", f"{a['x']}=4")
    assert_refused(proc, 'no mark "nowhere"')
    proc, _ = replay(tmp_path, log, "--until-mark", "never")
    assert_refused(proc, 'ends before the mark "never"')
    proc, _ = replay(tmp_path, log, "--poison", f"{a['x']}=4")
    assert_refused(proc, "--after-mark")
    proc, _ = replay(tmp_path, log, "--dump", f"{a['x']}=4={tmp_path / 'd'}")
    assert_refused(proc, "--dump", "not inside one live allocation")   # x was freed at the end
    proc, _ = replay(tmp_path, log, "--dump", "12=4")
    assert_refused(proc, "--dump wants ADDR=N=FILE")


def test_op_log_stops_at_its_size_limit(tmp_path):
    log = tmp_path / "op.log"
    env = dict(ENV, DRILLS_SIM_OPLOG=str(log), DRILLS_SIM_OPLOG_LIMIT="1000")
    proc = subprocess.run([PROGRAM, str(tmp_path / "out.bin")], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr   # the program itself runs on
    assert "drills-sim: op log stopped" in proc.stderr
    assert records(log)[-1] == (TRUNCATED, b"")
    assert_refused(replay(tmp_path, log)[0], "TRUNCATED")


def test_library_must_hold_the_device_code(tmp_path):
    log, _, _, _, _ = run_program(tmp_path)
    (tmp_path / "junk.so").write_bytes(b"not an ELF file at all")
    for library, needle in ((tmp_path / "junk.so", "not a 64-bit little-endian ELF"),
                            (PROGRAM, "no .nv_fatbin section"),   # the executable has no device code
                            (tmp_path / "missing.so", "cannot open")):
        proc = subprocess.run([REPLAY, str(library), str(log), "--report", str(tmp_path / "r.jsonl")],
                              capture_output=True, text=True, env=ENV, timeout=60)
        assert_refused(proc, needle)


def test_mutated_logs_never_crash_the_replay(tmp_path):
    """Random damage to a real log (bytes, words, cuts): the replay runs (0) or refuses (2) with
    one ASCII line; never a signal, a hang or another code."""
    import random
    log, _, _, _, _ = run_program(tmp_path)
    good = log.read_bytes()
    rng = random.Random(20261202)
    for i in range(200):
        data = bytearray(good)
        for _ in range(rng.choice([1, 1, 2, 4, 16])):
            if len(data) <= 16:
                break
            op = rng.random()
            if op < 0.6:
                data[rng.randrange(len(data))] = rng.randrange(256)
            elif op < 0.8:
                at = rng.randrange(8, len(data))
                data[at:at + 8] = rng.randbytes(8)
            else:
                data = data[:rng.randrange(len(data))]
        mutated = tmp_path / "mutated.log"
        mutated.write_bytes(bytes(data))
        proc = subprocess.run([REPLAY, LIBRARY, str(mutated), "--report", str(tmp_path / "m.jsonl")],
                              capture_output=True, env=ENV, timeout=60)
        assert proc.returncode in (0, 2), (i, proc.returncode, proc.stderr[-500:])
        if proc.returncode == 2:
            last = proc.stderr.strip().splitlines()[-1].decode("ascii")
            assert last.startswith("drills_sim_replay: "), (i, last)
