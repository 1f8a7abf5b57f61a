"""The code's layering, read from its sources: no include runs up a layer (the build runs
cmake/LbbenchIncludes.cmake; here it is shown to catch one), the folders that hold plain
data (core, scenario, machine presets, records, the harness) include no balancer strategy,
no MPI and no partitioner, and the engines differ only inside benchmark/engines. The link
side of the plain-data rule is checked when CMake configures (cmake/LbbenchLayering.cmake).

Environment: LBBENCH_SOURCE_DIR.
"""
import os
import re
import subprocess
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(os.environ["LBBENCH_SOURCE_DIR"])

PLAIN_FOLDERS = ["benchmark/core", "benchmark/scenario", "benchmark/machine", "benchmark/record", "harness"]
# What plain code may include of balancers/: the registry table and the typed params.
SPEC_HEADERS = re.compile(r"^balancers/(plugins|sdk/(registry|config|fitted_costs|assumed_network|protocol_stats|"
                          r"plugin_declaration)|[a-z]+/params|"
                          r"model/metrics|reorder/methods)\.hpp$")
# The engines as plain data: names and what each can run.
PLAIN_ENGINE_HEADERS = {"engines/catalog.hpp"}
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
            needs_mpi = header.startswith(("comm/", "replay/", "meshes/build")) or (
                header.startswith("engines/") and header not in PLAIN_ENGINE_HEADERS)
            if kind == '"' and needs_mpi:
                out.append(f"{where}: includes {header}, which needs MPI")
            if header in FORBIDDEN_SYSTEM:
                out.append(f"{where}: includes <{header}>")
    return out


# Engines differ in their own folders only: no preprocessor switch on the engine and no
# comparison with an engine's name anywhere else.
ENGINE_SWITCH = re.compile(r'#\s*if(n?def)?\b[^\n]*LBBENCH_SMPI|[!=]=\s*"s?mpi"|"s?mpi"\s*[!=]=')
CODE_FOLDERS = ["benchmark", "balancers", "meshes", "harness"]


def engine_switches(root=SOURCE):
    out = []
    for folder in CODE_FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in {".cpp", ".hpp", ".h"} or "engines" in path.relative_to(root).parts:
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if ENGINE_SWITCH.search(line):
                    out.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    return out


class EnginesDifferInTheirOwnFolders(unittest.TestCase):
    def test_no_engine_switch_outside_the_engines(self):
        self.assertEqual(engine_switches(), [])

    def test_the_check_sees_an_engine_switch(self):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "harness").mkdir()
            (Path(tmp) / "harness" / "a.cpp").write_text('#ifdef LBBENCH_SMPI\nif (run.engine == "smpi") {}\n')
            (Path(tmp) / "benchmark" / "engines" / "smpi").mkdir(parents=True)
            (Path(tmp) / "benchmark" / "engines" / "smpi" / "b.cpp").write_text('#ifdef LBBENCH_SMPI\n')
            self.assertEqual(engine_switches(Path(tmp)), ["harness/a.cpp:1: #ifdef LBBENCH_SMPI",
                                                          'harness/a.cpp:2: if (run.engine == "smpi") {}'])


def layering_check(root):
    """What the build's layering check says of the tree at `root`: its exit code and output."""
    done = subprocess.run(["cmake", f"-DLBBENCH_SOURCE_DIR={root}", "-P",
                           str(SOURCE / "cmake" / "LbbenchIncludes.cmake")], capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


class NoIncludeRunsUp(unittest.TestCase):
    def test_the_tree_is_layered(self):
        code, output = layering_check(SOURCE)
        self.assertEqual(code, 0, output)

    def test_the_check_sees_an_include_that_runs_up_and_a_folder_out_of_the_table(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            for folder in ["benchmark/core", "benchmark/replay", "benchmark/stray"]:
                (root / folder).mkdir(parents=True)
            (root / "benchmark/replay/step.hpp").write_text('#include "core/types.hpp"\n')
            (root / "benchmark/core/types.hpp").write_text('// fine\n#include "replay/step.hpp"\n')
            (root / "benchmark/stray/a.cpp").write_text("")
            code, output = layering_check(root)
        self.assertNotEqual(code, 0)
        self.assertIn("benchmark/core/types.hpp:2: benchmark/core includes benchmark/replay, which is not below it",
                      output)
        self.assertIn("its folder benchmark/stray has no place in the layers", output)
        self.assertNotIn("benchmark/replay/step.hpp", output)


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
