"""The HTML of every page validates with the Nu HTML Checker (vnu.jar, from scripts/browser/setup.sh):
the page as served, and each page as the browser holds it once its view is drawn (saved by the
other tests' `every_theme`; this file runs after them)."""

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, SCREENSHOTS

VNU = Path(sys.prefix) / "vnu.jar"  # the browser venv, where setup.sh puts it
# Chromium's and Firefox's attribute for choosing a folder to upload; not in the HTML standard.
KNOWN = r".*webkitdirectory.*"


def test_every_page_is_valid_html(tmp_path):
    assert VNU.exists(), f"no HTML checker at {VNU}: run scripts/browser/setup.sh"
    assert shutil.which("java"), "the HTML checker needs a JRE (default-jre-headless)"
    pages = [ROOT / "Sources/SibylServer/Resources/Web/index.html"] + sorted((SCREENSHOTS / "html").glob("*.html"))
    done = subprocess.run(["java", "-jar", str(VNU), "--errors-only", "--format", "text", "--filterpattern", KNOWN, *map(str, pages)],
                          capture_output=True, text=True, timeout=300)
    print(f"[html] {len(pages)} pages checked with vnu.jar: {'valid' if done.returncode == 0 else 'errors'}")
    assert done.returncode == 0, done.stdout + done.stderr
