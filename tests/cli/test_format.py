"""Every C++ source follows the root .clang-format. To fix a file: clang-format -i FILE.

Environment: LBBENCH_SOURCE_DIR.
"""
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(os.environ["LBBENCH_SOURCE_DIR"])
FOLDERS = ["benchmark", "balancers", "meshes", "harness", "tests"]


def sources():
    return sorted(p for folder in FOLDERS for p in (SOURCE / folder).rglob("*")
                  if p.suffix in {".cpp", ".hpp", ".h"} and p.is_file())


def misformatted(files, clang_format, root=SOURCE):
    """The files clang-format would change under the root .clang-format."""
    style = f"--style=file:{SOURCE / '.clang-format'}"
    out = []
    for path in files:
        result = subprocess.run([clang_format, "--dry-run", "--Werror", style, str(path)], capture_output=True,
                                text=True)
        if result.returncode != 0:
            out.append(str(path.relative_to(root)))
    return out


class TheTreeIsFormatted(unittest.TestCase):
    def setUp(self):
        self.clang_format = shutil.which("clang-format")
        if not self.clang_format:
            self.fail("clang-format is not installed (scripts/setup.sh installs it)")

    def test_every_source_follows_the_root_style(self):
        files = sources()
        self.assertGreater(len(files), 100)
        self.assertEqual(misformatted(files, self.clang_format), [],
                         "run clang-format -i on these files (the style is the root .clang-format)")

    def test_the_check_sees_a_misformatted_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad, good = Path(tmp) / "bad.cpp", Path(tmp) / "good.cpp"
            bad.write_text("int  f( int x ){return x;}\n")
            good.write_text("int f(int x) { return x; }\n")
            self.assertEqual(misformatted([bad, good], self.clang_format, Path(tmp)), ["bad.cpp"])


if __name__ == "__main__":
    unittest.main()
