"""The front door's commands: every `sh` block of README.md, run as written.

Each block runs as one bash script (so a `cd` carries to the next line, as in a user's
shell) from a scratch folder that looks like the source tree: `build/lbbench` is the
binary, `scenarios` the source's scenarios, `vt_lb_data` a recorded vt run from the shared
traces, and HOME is the scratch folder, so what a command writes (runs.jsonl,
results/<sweep>/, ~/lbbench) stays there. The few commands run elsewhere are listed in
ELSEWHERE with the reason; the test fails if one of them leaves the README.

Environment: LBBENCH, LBBENCH_SOURCE_DIR, LBBENCH_BUILD_DIR.
"""
import os
import re
import subprocess
import tempfile
import unittest
from pathlib import Path

LBBENCH = Path(os.environ["LBBENCH"])
SOURCE = Path(os.environ["LBBENCH_SOURCE_DIR"])
BUILD = Path(os.environ["LBBENCH_BUILD_DIR"])
README = (SOURCE / "README.md").read_text()
TRACE = (SOURCE / ".." / "shared" / "traces" / "lbaf-vt-16ranks").resolve()

# Commands not run here, by how they start, and why.
ELSEWHERE = {
    "scripts/setup.sh": "CI runs it on a fresh machine; here it would install packages",
    "ctest ": "this test is part of it",
    "build/lbbench run scenarios/quickstart.yaml": "the quickstart test below runs it and compares its output",
}
# Commands too long for the suite: run with --list, which checks the sweep file and every
# --set against every run it makes, and starts none.
LISTED_ONLY = {
    "build/lbbench sweep scenarios/sweeps/model-accuracy.yaml": "hours of SMPI runs",
}


def sh_blocks(text):
    return re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)


def commands(block):
    """The block's commands: continued lines joined, comments dropped."""
    joined = block.replace("\\\n", " ")
    return [re.sub(r"\s+#.*$", "", line).strip() for line in joined.splitlines() if line.strip()]


def masked(line):
    """A line of output with its numbers as '#', for comparing shapes."""
    return re.sub(r"-?\d[\d.]*", "#", line.strip())


def scratch_tree(root):
    (root / "build").mkdir()
    (root / "build" / "lbbench").symlink_to(LBBENCH)
    (root / "scenarios").symlink_to(SOURCE / "scenarios")
    if TRACE.is_dir():
        (root / "vt_lb_data").symlink_to(TRACE)


class TheReadmesCommandsRunAsWritten(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        scratch_tree(self.root)
        self.env = dict(os.environ, HOME=str(self.root), LBBENCH_CACHE_DIR=str(self.root / "cache"))
        if os.geteuid() == 0:
            self.env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

    def tearDown(self):
        self.tmp.cleanup()

    def script(self, block):
        lines = []
        for command in commands(block):
            elsewhere = [why for start, why in ELSEWHERE.items() if command.startswith(start)]
            if elsewhere:
                print(f"not run here: '{command}': {elsewhere[0]}")
                continue
            listed = [why for start, why in LISTED_ONLY.items() if command.startswith(start)]
            if listed:
                print(f"run with --list: '{command}': {listed[0]}")
                command += " --list"
            if "vt_lb_data" in command and not TRACE.is_dir():
                print(f"not run: '{command}': {TRACE} is absent")
                continue
            lines.append(command)
        return lines

    def run_block(self, lines):
        # The install block's `cmake --install build` needs the real build folder.
        cwd = self.root
        if any(line.startswith("cmake --install build") for line in lines):
            cwd = self.root / "install-block"
            cwd.mkdir()
            (cwd / "build").symlink_to(BUILD)
        return subprocess.run(["bash", "-e", "-x", "-c", "\n".join(lines)], cwd=cwd, env=self.env,
                              capture_output=True, text=True, timeout=1200)

    def test_every_command_runs_and_exits_0(self):
        blocks = [self.script(block) for block in sh_blocks(README)]
        self.assertGreaterEqual(sum(map(len, blocks)), 15)
        for lines in filter(None, blocks):
            with self.subTest(block=lines[0]):
                result = self.run_block(lines)
                self.assertEqual(result.returncode, 0, f"{result.stderr[-3000:]}\n{result.stdout[-2000:]}")

    def test_commands_run_elsewhere_are_still_in_the_readme(self):
        written = [command for block in sh_blocks(README) for command in commands(block)]
        for start in [*ELSEWHERE, *LISTED_ONLY]:
            self.assertTrue(any(command.startswith(start) for command in written), start)

    def test_the_quickstart_prints_what_the_readme_shows(self):
        [command] = [c for block in sh_blocks(README) for c in commands(block) if "quickstart.yaml --engine smpi" in c]
        shown = re.search(r"^```\n(lbbench · quickstart.*?)^```", README, re.S | re.M)
        self.assertIsNotNone(shown, "README.md shows no quickstart output")
        result = subprocess.run(["bash", "-e", "-c", command], cwd=self.root, env=self.env, capture_output=True,
                                text=True, timeout=600)
        self.assertEqual(result.returncode, 0, result.stderr)
        printed = [masked(line) for line in result.stdout.splitlines() if line.strip()]
        expected = [masked(line) for line in shown.group(1).splitlines() if line.strip()]
        self.assertEqual(printed, expected)
        self.assertEqual(result.stdout.splitlines()[0], shown.group(1).splitlines()[0])
        self.assertTrue((self.root / "build" / "quickstart.jsonl").is_file())


if __name__ == "__main__":
    unittest.main()
