#!/usr/bin/env python3
"""drills' judge. `python practice/judge.py 78` judges problem 78; `--help` lists the rest.

It runs the `drills` package of this checkout (the folder above practice/), whatever else is
installed, by importing that package from its own path; `pip install .` gives the same program
as the `drills` command.
"""

import importlib.util
import sys
from pathlib import Path


def _load_checkout_package() -> None:
    init = Path(__file__).resolve().parent.parent / "drills" / "__init__.py"
    spec = importlib.util.spec_from_file_location("drills", init, submodule_search_locations=[str(init.parent)])
    package = importlib.util.module_from_spec(spec)
    sys.modules["drills"] = package
    spec.loader.exec_module(package)


if __name__ == "__main__":
    if sys.version_info < (3, 11):
        sys.exit("drills: needs Python 3.11 or newer (for tomllib); this is " + sys.version.split()[0])
    try:
        _load_checkout_package()
        sys.modules["drills"].cache_bytecode()  # before the judge's own modules are imported
        from drills.cli import main
    except ModuleNotFoundError as e:
        print(f"drills: the Python package '{e.name}' is missing: run `bash practice/setup.sh` "
              "(or pip install -r requirements.txt)", file=sys.stderr)
        sys.exit(2)
    sys.exit(main())
