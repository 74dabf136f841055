"""pytest plugin (`-p drills.pipeline.pytest_channel`): the pytest side of the result channel.

The judge passes a pipe's write end as DRILLS_RESULT_FD. The learner's library never runs in this
process (drills.pipeline.capi.Lib loads it in a subject server, a child that gets neither the
channel nor this process's memory: see capi.make_undumpable). At the end of the session the
junit report goes over the pipe in one frame, built from junitxml's records in memory: the XML
file junitxml writes could be rewritten by the server (same user) between its write and a read.
The judge reads only the frame (see execute.py).
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

import pytest

from . import capi
from .capi import make_undumpable
from .execute import result_fd, send_report

_FD = None

# The judge's end of pytest's output, taken when this plugin is imported (-p: before pytest's
# capture replaces descriptors 1 and 2 with a temporary file): the subject server prints there, so
# a library printing without end meets the judge's output limit instead of filling a file.
if os.environ.get("DRILLS_RESULT_FD"):
    try:
        capi.SERVER_OUTPUT = os.dup(1)
    except OSError:
        pass


def pytest_configure(config):
    global _FD
    _FD = result_fd()  # programs this process starts never inherit it
    if _FD is not None:
        make_undumpable()  # before any test starts a subject server


def _report_in_memory(config) -> bytes | None:
    """What junitxml writes to its file, built from its records here: testcases only (what the
    judge reads). None when this pytest's junitxml keeps its records elsewhere."""
    try:
        from _pytest.junitxml import xml_key
        xml = config.stash.get(xml_key, None)
        cases = [r.to_xml() for r in xml.node_reporters_ordered]
    except (ImportError, AttributeError, TypeError):
        return None
    suite = ET.Element("testsuite", name="pytest", tests=str(len(cases)))
    suite.extend(cases)
    root = ET.Element("testsuites", name="pytest tests")
    root.append(suite)
    return b'<?xml version="1.0" encoding="utf-8"?>' + ET.tostring(root, encoding="utf-8", xml_declaration=False)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    global _FD
    if _FD is None:
        return
    report = _report_in_memory(session.config)
    if report is None:  # an older or newer junitxml: its file, as before
        try:
            with open(session.config.option.xmlpath, "rb") as f:
                report = f.read()
        except (OSError, TypeError):
            report = b""
    send_report(_FD, report)
    _FD = None
