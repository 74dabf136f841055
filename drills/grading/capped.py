"""`capped.py LOG MARKER -- PROGRAM ARGS...`: run a submission's test program with its output in a
file, so a program that prints without end is stopped by the file-size limit (RLIMIT_FSIZE, set by
the grader: SIGXFSZ) instead of filling a pipe the judge reads into memory. Prints the head and
tail of the output, and ends as the program ended (same exit code, or killed by the same signal).
The grader puts this script where the judge expects the test binary.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

HEAD, TAIL = 16 * 1024, 48 * 1024


def main(argv: list[str]) -> int:
    log, marker, program = argv[0], argv[1], argv[3:]
    with open(log, "wb") as out:
        # the judge's result channel and the checker's record stream go to the program itself
        fds = (os.environ.get("DRILLS_RESULT_FD", ""), os.environ.get("DRILLS_RECORD_FD", ""))
        keep = tuple(int(fd) for fd in fds if fd.isdigit())
        code = subprocess.call(program, stdout=out, stderr=subprocess.STDOUT, pass_fds=keep)  # restores SIGXFSZ
    size = os.path.getsize(log)
    with open(log, "rb") as f:
        data = f.read(HEAD + TAIL + 1)
        if size > HEAD + TAIL:
            f.seek(size - TAIL)
            data = data[:HEAD] + f"\n... ({size - HEAD - TAIL} bytes left out) ...\n".encode() + f.read()
    sys.stdout.buffer.write(data)
    if code == -signal.SIGXFSZ:
        with open(marker, "w") as m:
            m.write(str(size))
        sys.stdout.buffer.write(f"\ndrills-grade: the program wrote {size} bytes, the limit; it was stopped\n".encode())
    sys.stdout.flush()
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
