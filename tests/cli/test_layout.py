"""The code's layering, read from its includes: the folders that hold plain data (core,
scenario, machine presets, records, the harness) include no balancer strategy, no MPI and
no partitioner. The link side of the same rule is checked when CMake configures
(cmake/LbbenchLayering.cmake).

Environment: LBBENCH_SOURCE_DIR.
"""
import os
import re
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(os.environ["LBBENCH_SOURCE_DIR"])

PLAIN_FOLDERS = ["benchmark/core", "benchmark/scenario", "benchmark/machine", "benchmark/record", "harness"]
# What plain code may include of balancers/: the registry table and the typed params.
SPEC_HEADERS = re.compile(r"^balancers/(registry|params|fitted_costs|assumed_network|[a-z]+/params|"
                          r"reorder/methods)\.hpp$")
FORBIDDEN_SYSTEM = {"mpi.h", "metis.h", "zoltan.h", "smpi/smpi.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def includes(path):
    return INCLUDE.findall(path.read_text(errors="replace"))


def violations(folder, root=SOURCE):
    out = []
    for path in sorted((root / folder).rglob("*")):
        if path.suffix not in {".cpp", ".hpp", ".h"}:
            continue
        for kind, header in includes(path):
            where = path.relative_to(root)
            if kind == '"' and header.startswith("balancers/") and not SPEC_HEADERS.match(header):
                out.append(f"{where}: includes the strategy header {header}")
            if kind == '"' and header.startswith(("mpi/", "engine/", "engines/", "meshes/build", "work/")):
                out.append(f"{where}: includes {header}, which needs MPI")
            if header in FORBIDDEN_SYSTEM:
                out.append(f"{where}: includes <{header}>")
    return out


class PlainDataStaysPlain(unittest.TestCase):
    def test_no_plain_folder_includes_a_strategy_mpi_or_a_partitioner(self):
        found = [v for folder in PLAIN_FOLDERS if (SOURCE / folder).is_dir() for v in violations(folder)]
        self.assertEqual(found, [])

    def test_the_check_sees_a_forbidden_include(self):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "harness").mkdir()
            (Path(tmp) / "harness" / "probe.hpp").write_text(
                '#include "balancers/tree/tree.hpp"\n#include "balancers/tree/params.hpp"\n#include <mpi.h>\n')
            found = violations("harness", Path(tmp))
        self.assertEqual(found, ["harness/probe.hpp: includes the strategy header balancers/tree/tree.hpp",
                                 "harness/probe.hpp: includes <mpi.h>"])


if __name__ == "__main__":
    unittest.main()
