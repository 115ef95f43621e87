"""Browser test of the web dashboard on an explicit dynamics job: test_dashboard.py's harness (a
real ductiled serving the page, Debian's chromium driven by Playwright); the checks are in
browser/test_dashboard_explicit.mjs.

usage: test_dashboard_explicit.py DUCTILED DIST_DIR NODE_MODULES_DIR (exit 77 without chromium
or node)"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
import dtserver  # noqa: E402
import test_dashboard  # noqa: E402


def main(binary):
    # The example plate over 0.3 (about 10 s in a Release build), 30 frames with a VTU each.
    test_dashboard.browser_checks(binary, "test_dashboard_explicit.mjs",
                                  {"EXPLICIT_JOB": dtserver.explicit_job(period=0.3, frames=30)})


if __name__ == "__main__":
    dtserver.run(main)
