#!/usr/bin/env bash
# Installs what drills needs on a Debian/Ubuntu machine that has the CUDA Toolkit (nvcc):
# CMake, GoogleTest and the Python packages in requirements.txt. Safe to run again.
#   bash practice/setup.sh           what the judge needs
#   bash practice/setup.sh --tests   also what the test suite needs (Chromium and Playwright for the
#                                    browser tests, jsonschema): the README's test command uses it
set -euo pipefail
cd "$(dirname "$0")/.."
tests=0
for arg in "$@"; do
  case "$arg" in
    --tests) tests=1 ;;
    *) echo "drills: setup.sh: unknown option $arg (known: --tests)" >&2; exit 2 ;;
  esac
done

if ! command -v nvcc >/dev/null 2>&1; then
  echo "drills: nvcc not found. Install the CUDA Toolkit and put its bin/ on PATH (no GPU is needed)." >&2
  exit 2
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
packages=()
command -v cmake >/dev/null 2>&1 || packages+=(cmake)
[ -f /usr/include/gtest/gtest.h ] || packages+=(libgtest-dev)
ldconfig -p 2>/dev/null | grep -q libzstd.so.1 || packages+=(libzstd1)
# The browser app serves its editor and math from Debian's packages, never from a CDN.
[ -d /usr/share/javascript/codemirror ] || packages+=(libjs-codemirror)
[ -d /usr/share/javascript/katex ] || packages+=(libjs-katex)
# `judge.py grade` runs each submission in a bubblewrap sandbox when it is installed.
command -v bwrap >/dev/null 2>&1 || packages+=(bubblewrap)
if [ "$tests" = 1 ]; then
  command -v chromium >/dev/null 2>&1 || packages+=(chromium)
  fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || packages+=(fonts-noto-cjk)  # Chinese in screenshots
fi
if [ ${#packages[@]} -gt 0 ]; then
  echo "drills: installing ${packages[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${packages[@]}"
fi

python3 -m pip install -q -r requirements.txt
if [ "$tests" = 1 ]; then
  python3 -m pip install -q -r requirements-test.txt
  echo "drills: ready. Run the tests with: python3 -m pytest"
else
  echo "drills: ready. Judge problem 78 with: python3 practice/judge.py 78"
fi
