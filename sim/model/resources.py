"""Registers and shared memory per kernel, as ptxas reports them for the time model's occupancy.

    python3 sim/model/resources.py PROGRAM [--arch sm_90]

PROGRAM is an executable built for the simulator: its fat binary holds the PTX (sim builds keep
compute_80 PTX, uncompressed). ptxas (next to nvcc) compiles that PTX for the named GPU with -v,
and prints, per kernel, the registers and static shared memory the time model needs. No ptxas,
or PTX it cannot read: an empty answer, and the model assumes 32 registers (as the simulator's
occupancy API does).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from sass_corpus import elf_sections  # noqa: E402

FATBIN_MAGIC = 0xBA55ED50


def fatbin_ptx(executable: Path) -> list[str]:
    """Every uncompressed PTX text in the executable's .nv_fatbin section."""
    try:
        data = elf_sections(Path(executable).read_bytes()).get(".nv_fatbin", b"")
    except (OSError, struct.error, ValueError):
        return []
    texts, at = [], 0
    while at + 16 <= len(data):
        magic, _version, header, size = struct.unpack_from("<IHHQ", data, at)
        if magic != FATBIN_MAGIC:
            at += 8  # containers are 8-byte aligned; skip padding
            continue
        entry, end = at + header, at + header + size
        while entry + 16 <= end:
            kind, _, ehead, esize = struct.unpack_from("<HHIQ", data, entry)
            flags, = struct.unpack_from("<Q", data, entry + 40) if ehead >= 48 else (0,)
            payload = data[entry + ehead: entry + ehead + esize]
            if kind == 1 and not flags & 0xA000:  # PTX, not compressed
                text = payload.split(b"\0", 1)[0].decode(errors="replace")
                if ".version" in text:
                    texts.append(text)
            if ehead == 0:
                break
            entry += ehead + esize
        at = end
    return texts


def ptxas() -> str | None:
    cuda = Path(os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda")
    for candidate in (cuda / "bin" / "ptxas", shutil.which("ptxas")):
        if candidate and Path(candidate).exists():
            return str(candidate)
    return None


ENTRY = re.compile(r"Compiling entry function '([^']+)'")
USED = re.compile(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?")


def kernel_resources(executable: Path, arch: str = "sm_90") -> dict[str, dict]:
    """{mangled kernel name: {"registers": n, "shared": static bytes}} from ptxas -v."""
    tool = ptxas()
    if not tool:
        return {}
    out: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="drills-ptxas-") as tmp:
        for i, text in enumerate(fatbin_ptx(executable)):
            src = Path(tmp) / f"m{i}.ptx"
            src.write_text(text)
            p = subprocess.run([tool, f"-arch={arch}", "-v", str(src), "-o", str(Path(tmp) / f"m{i}.cubin")],
                               capture_output=True, text=True)
            current = None
            for line in (p.stdout + p.stderr).splitlines():
                m = ENTRY.search(line)
                if m:
                    current = m[1]
                    continue
                m = USED.search(line)
                if m and current:
                    out[current] = {"registers": int(m[1]), "shared": int(m[2] or 0)}
                    current = None
    return out


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(__doc__)
        return 2
    arch = "sm_90"
    if "--arch" in args:
        i = args.index("--arch")
        arch = args[i + 1]
        del args[i:i + 2]
    print(json.dumps(kernel_resources(Path(args[0]), arch), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
