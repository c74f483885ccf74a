#!/usr/bin/env python3
"""The docs check's own test: planted pages it must pass, and planted mistakes it must catch,
each named by file and line (a checker that passes everything would pass the real docs too).

Usage: check_docs_test.py CHECK_DOCS_PY COMMSWEEP_BIN
"""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

CHECKER = COMMSWEEP = None


def run_checker(pages, *extra):
    """Writes pages {relative path: text} into a scratch repository; runs the checker on it."""
    with tempfile.TemporaryDirectory(prefix="check-docs-test-") as repo:
        for rel, text in pages.items():
            path = os.path.join(repo, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(textwrap.dedent(text).lstrip("\n"))
        proc = subprocess.run(
            [sys.executable, CHECKER, "--repo", repo, "--commsweep", COMMSWEEP, *extra],
            capture_output=True, text=True, timeout=120)
        return proc.returncode, proc.stdout + proc.stderr


class CheckDocsTest(unittest.TestCase):
    def test_good_pages_pass(self):
        code, out = run_checker({
            "README.md": """
                # x
                ```sh
                export DOCS_CHECK_SETTING=from-readme
                build/commsweep --version
                commsweep list      # bare commsweep is the built binary too
                ```
                ```console
                $ echo one | tee made.txt
                one
                $ test "$(cat made.txt)" = one   # a later command sees an earlier one's file
                ```
                """,
            "docs/page.md": """
                ```sh
                test "$DOCS_CHECK_SETTING" = from-readme   # the README's exports apply here
                test -f suites/ci.yaml && test ! -e made.txt
                sh -c 'exit 3'   # exits 3: an expected failure
                echo "a # inside quotes" | \\
                  grep -q inside
                ```
                ```sh gpu
                false
                ```
                ```sh cluster
                false
                ```
                ```text
                plain output, no command here
                ```
                """,
            "suites/ci.yaml": "x: 1\n",
        }, "-v")
        self.assertEqual(code, 0, out)
        self.assertIn("not run (gpu", out)
        self.assertIn("not run (cluster", out)
        self.assertRegex(out, r"docs check: 2 files, 8 commands run, 2 marked")

    def test_planted_bad_command_fails_with_its_line(self):
        code, out = run_checker({"docs/planted.md": """
            # planted
            ```sh
            build/commsweep --version
            build/commsweep -e 12Q
            ```
            """})
        self.assertEqual(code, 1, out)
        self.assertIn("docs/planted.md:4: exit 2, expected 0", out)
        self.assertIn("12Q", out)  # the tail of commsweep's own message

    # The outputs shown under "$ " commands are compared, numbers and hex ids masked, blanks
    # collapsed, "..." standing for lines or text left out.
    def test_shown_output_matches_what_is_printed(self):
        code, out = run_checker({"README.md": """
            ```console
            $ printf 'took 12.5 us  at 3 GB/s\\nversion 0.1.0 (5639981c7c94)\\nversion 0.1.0 (831262219869-dirty)\\nskipped 1\\nskipped 2\\nlast of the lines\\n'
            took 8.01 us at 17 GB/s
            version 9.9.9 (abcdef0123)
            version 9.9.9 (abcdef0123-dirty)
            ...
            last ... lines
            $ build/commsweep --version
            commsweep 0.1.0 (0123456789ab)
            $ true
            ```
            """}, "-v")
        self.assertEqual(code, 0, out)

    def test_open_mpi_notices_are_not_the_programs_output(self):
        rule = "-" * 74
        code, out = run_checker({"README.md": f"""
            ```console
            $ printf 'ours\\n{rule}\\nmpirun detected that one or more processes exited\\n{rule}\\n'; exit 6   # exits 6
            ours
            ```
            """})
        self.assertEqual(code, 0, out)

    def test_a_changed_message_fails_naming_the_shown_line(self):
        code, out = run_checker({"docs/drift.md": """
            ```console
            $ build/commsweep -e 12Q   # exits 2
            commsweep: -e/--maxbytes: '12Q' is no size at all
            ```
            """})
        self.assertEqual(code, 1, out)
        self.assertIn("docs/drift.md:3: printed otherwise than shown:", out)
        self.assertIn("shown:   commsweep: -e/--maxbytes: 'NQ' is no size at all", out)
        self.assertIn("printed: commsweep: -e/--maxbytes: 'NQ' is not a size", out)
        self.assertIn("the command at docs/drift.md:2", out)

    def test_a_new_line_or_block_fails(self):
        code, out = run_checker({"docs/more.md": """
            ```console
            $ printf 'one\\n# New block:\\ntwo\\n'
            one
            two
            ```
            ```console
            $ printf 'one\\ntwo\\n# a new last block\\n'
            one
            two
            ```
            """})
        self.assertEqual(code, 1, out)
        self.assertIn("docs/more.md:4: printed otherwise than shown:", out)
        self.assertIn("printed: # New block:", out)
        self.assertIn("docs/more.md:9: printed more than shown (a new line or block?):", out)
        self.assertIn("printed: # a new last block", out)

    def test_a_missing_line_fails(self):
        code, out = run_checker({"README.md": "```console\n$ echo one\none\ntwo\n```\n"})
        self.assertEqual(code, 1, out)
        self.assertIn("README.md:4: printed otherwise than shown:", out)
        self.assertIn("printed: (nothing: the output ended)", out)

    # Magnitudes: a time or bandwidth shown must be within 10x of the printed one (below 50 us
    # and 0.05 GB/s a value counts as that floor), numbers otherwise masked as before.
    def test_a_time_a_thousand_times_off_fails_naming_its_line(self):
        code, out = run_checker({"README.md": """
            ```console
            $ printf 'took 5.0 us, window 0.8 s\\n'
            took 5000.0 us, window 0.8 s
            ```
            """})
        self.assertEqual(code, 1, out)
        self.assertIn("README.md:3: time 5000.0 us shown, 5.0 us printed: 100x apart", out)

    def test_times_within_ten_fold_or_under_the_floor_pass(self):
        code, out = run_checker({"README.md": """
            ```console
            $ printf 'took 3 us, then 400 us, window 2.5 s, 7 GB/s, 0.00 GB/s, count 5000\\n'
            took 40 us, then 60 us, window 0.3 s, 1.2 GB/s, 0.03 GB/s, count 5
            ```
            """})
        self.assertEqual(code, 0, out)

    def test_a_table_column_is_compared_by_its_unit(self):
        names = "#       size    count   time   algbw  #wrong"
        units = "#        (B)     (el)   (us)  (GB/s)"
        row = "     1048576   262144  {}  {}       0"
        printed = "\\n".join([names, units, row.format("  180.5", "  5.81")])
        code, out = run_checker({"docs/t.md": f"""
            ```console
            $ printf '{printed}\\n'
            {names}
            {units}
            {row.format("18050.0", "  0.06")}
            ```
            """})
        self.assertEqual(code, 1, out)
        self.assertIn("docs/t.md:5: time 18050.0 us shown, 180.5 us printed: 100x apart", out)
        self.assertIn("docs/t.md:5: bandwidth 0.06 GB/s shown, 5.81 GB/s printed: 97x apart", out)
        self.assertEqual(out.count("x apart"), 2, out)  # size and count: not times, not compared

    def test_a_slow_moment_is_run_again(self):
        # Slow the first time only: the smallest of the runs counts, so the page passes.
        code, out = run_checker({"README.md": """
            ```console
            $ if [ -e ran ]; then printf 'took 5 us\\n'; else touch ran; printf 'took 9000 us\\n'; fi
            took 6 us
            ```
            """})
        self.assertEqual(code, 0, out)

    def test_a_broken_link_or_anchor_fails_naming_its_line(self):
        code, out = run_checker({
            "README.md": "# Top\n\nSee [b](docs/b.md#the-b-section), [c](docs/c.md), [t](#top)\nand [x](docs/b.md#no-such).\n",
            "docs/b.md": "# B\n\n## The `b` section\n",
        })
        self.assertEqual(code, 1, out)
        self.assertIn("README.md:3: link (docs/c.md): no such file docs/c.md", out)
        self.assertIn("README.md:4: link (docs/b.md#no-such): no heading of docs/b.md has the anchor #no-such", out)
        self.assertNotIn("the-b-section)", out)
        self.assertNotIn("(#top)", out)

    def test_wrong_expected_exit_fails(self):
        code, out = run_checker({"README.md": "```sh\ntrue   # exits 2\n```\n"})
        self.assertEqual(code, 1, out)
        self.assertIn("README.md:2: exit 0, expected 2", out)

    def test_unmarked_command_it_cannot_run_fails(self):
        code, out = run_checker({"README.md": "```sh\nno-such-program-here --x\n```\n"})
        self.assertEqual(code, 1, out)
        self.assertIn("README.md:2: exit 127", out)
        self.assertIn("mark the block gpu, cluster or long", out)

    def test_command_in_an_unrunnable_block_fails(self):
        code, out = run_checker({"docs/a.md": """
            text
            ```
            mpirun -np 4 build/commsweep
            ```
            ```bash
            true
            scripts/run.sh
            ```
            An indented one:

                commsweep compare r.json --baseline b.json
            """})
        self.assertEqual(code, 1, out)
        self.assertIn("docs/a.md:3: a command in a ``` block", out)
        self.assertIn("docs/a.md:7: a command in a ```bash block", out)
        self.assertIn("docs/a.md:11: a command in an indented code block", out)

    def test_unknown_mark_fails(self):
        code, out = run_checker({"README.md": "```sh gpus\nfalse\n```\n"})
        self.assertEqual(code, 1, out)
        self.assertIn("README.md:1: unknown mark 'gpus'", out)

    def test_a_hanging_command_is_ended(self):
        code, out = run_checker({"README.md": "```sh\nsleep 30\n```\n"}, "--timeout", "1")
        self.assertEqual(code, 1, out)
        self.assertIn("README.md:2: still running after 1.0 s", out)

    @unittest.skipUnless(os.geteuid() == 0, "Open MPI refuses root only when run as root")
    def test_open_mpi_permissions_come_from_the_readme_alone(self):
        # The inherited OMPI_ALLOW_RUN_AS_ROOT* are dropped: without the README's exports, mpirun
        # as root fails, so the check proves that the README's lines are what make it work.
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        with tempfile.TemporaryDirectory() as repo:
            with open(os.path.join(repo, "README.md"), "w") as f:
                f.write("```sh\nmpirun -np 1 build/commsweep --version\n```\n")
            proc = subprocess.run([sys.executable, CHECKER, "--repo", repo,
                                   "--commsweep", COMMSWEEP], capture_output=True, text=True,
                                  env=env, timeout=60)
            self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
            self.assertIn("README.md:2: exit 1, expected 0", proc.stderr)

    def test_nothing_in_the_checkout_is_written(self):
        with tempfile.TemporaryDirectory() as repo:
            with open(os.path.join(repo, "README.md"), "w") as f:
                f.write("```sh\necho changed > README.md\nrm -rf suites\n```\n")
            os.makedirs(os.path.join(repo, "suites"))
            proc = subprocess.run([sys.executable, CHECKER, "--repo", repo,
                                   "--commsweep", COMMSWEEP], capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            with open(os.path.join(repo, "README.md")) as f:
                self.assertIn("```sh", f.read())
            self.assertTrue(os.path.isdir(os.path.join(repo, "suites")))


if __name__ == "__main__":
    CHECKER, COMMSWEEP = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1] + sys.argv[3:], verbosity=2)
