# Sourced by the H200 scripts that run the judge (gpupath.sh, probereplay.sh): the Python packages
# and GoogleTest sources the GPU image lacks, carried with the tree, and the build's parallelism.
# Needs $ROOT (the repository root) and $O (the output folder, for pip's log).
if ls "$ROOT"/.whl/*.whl > /dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/gpupath-site "$ROOT"/.whl/*.whl \
    > "$O/pip.txt" 2>&1 || { echo "pip install of .whl/ failed:"; tail -5 "$O/pip.txt"; }
  export PYTHONPATH=/tmp/gpupath-site${PYTHONPATH:+:$PYTHONPATH}
else
  echo "no .whl/ carried: pydantic must already be importable"
fi
python3 -c "import pydantic, rich, numpy, hypothesis, psutil; print('imports ok, pydantic', pydantic.VERSION)" 2>&1 | tee -a "$O/log.txt"
if [ -f "$ROOT/.gtest/CMakeLists.txt" ]; then
  export DRILLS_GTEST_SOURCE="$ROOT/.gtest"
else
  echo "no .gtest/ carried: CMake must find an installed GoogleTest" | tee -a "$O/log.txt"
fi
export DRILLS_BUILD_JOBS=$(nproc)
export PYTHONUNBUFFERED=1
