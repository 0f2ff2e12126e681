"""What a first visit and an update cost in bytes (issue 19), in headless Chromium against `openmasq serve`,
with the site's own size as the baseline, measured in the same run:

1. Install: the bytes the server sends for a first visit, from the page load until the service worker
   controls the page with its precache complete (the page's own boot and the install share the HTTP
   cache: the install revalidates what the boot fetched). Also the precache itself (the app group).
   Targets: precache <= 60 MB; install bytes / site bytes printed.
2. Update: a second build differing in one script; the bytes the server sends from the update check
   until the new worker controls the page. Target: update bytes <= 1 % of the site's bytes.

Bytes are counted from the server's log (method, path, status): a 200 costs the file's size, a 304 no
body (headers are not counted on either side). Run in the dev venv:  python bench/install.py
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "tests" / "pyodide"))

from appsite import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

from openmasq.site.build import BuildOptions, BuildResult, build_site  # noqa: E402
from openmasq.site.serve import BackgroundServer  # noqa: E402

PRECACHE_TARGET_BYTES = 60_000_000  # issue 19: the install precache
UPDATE_SHARE_TARGET = 0.01  # issue 19: an update that changes one script fetches <= 1 % of the site
CHANGED_SCRIPT = "app/screens/about.js"
LOG_LINE = re.compile(r"^(GET|HEAD) (\S+) (\d+)$")
TIMEOUT_MS = 600_000

WAIT_FOR_CONTROL = """async () => {
  const container = navigator.serviceWorker;
  await container.ready;
  const once = (target, name) => new Promise((r) => target.addEventListener(name, r, { once: true }));
  if (!container.controller) await once(container, "controllerchange");
  const worker = container.controller;
  while (worker.state !== "activated") await once(worker, "statechange");
}"""
UPDATE = """async () => {
  const container = navigator.serviceWorker;
  const changed = new Promise((r) => container.addEventListener("controllerchange", r, { once: true }));
  await (await container.getRegistration()).update();
  await changed;
}"""


def twice(lines: list[str], root: Path) -> tuple[int, list[str]]:
    """The files sent whole more than once (the boot and the install racing for them) and their bytes."""
    seen: dict[str, int] = {}
    for match in filter(None, (LOG_LINE.match(line) for line in lines)):
        if match[1] == "GET" and match[3] == "200":
            seen[match[2]] = seen.get(match[2], 0) + 1
    paths = sorted(p for p, n in seen.items() if n > 1)
    return sum((root / (p.lstrip("/") or "index.html")).stat().st_size * (seen[p] - 1) for p in paths), paths


def served_bytes(lines: list[str], root: Path) -> tuple[int, int]:
    """(bytes, requests) the log lines stand for: a 200 GET is the whole file, anything else no body."""
    total = requests = 0
    for line in lines:
        match = LOG_LINE.match(line)
        if not match:
            continue
        requests += 1
        if match[1] == "GET" and match[3] == "200":
            rel = match[2].lstrip("/") or "index.html"
            total += (root / rel).stat().st_size
    return total, requests


def second_build(first: BuildResult, root: Path) -> BuildResult:
    web = root / "web"
    shutil.copytree(ROOT / "web", web)
    script = web / CHANGED_SCRIPT
    script.write_text(script.read_text(encoding="utf-8") + "\n// bench/install.py update probe\n", encoding="utf-8")
    out = root / "site2"
    shutil.copytree(first.out, out, copy_function=os.link)
    return build_site(BuildOptions(out=out, repo=ROOT, web=web))


def verdict(ok: bool) -> str:
    return "MET" if ok else "NOT MET"


def measure(playwright: Any, profile: Path, first: BuildResult, second: BuildResult) -> dict[str, int]:
    server = BackgroundServer(first.out, port=0).start()
    try:
        # A real profile, as a user has: an incognito context's in-memory HTTP cache keeps no 10 MB file,
        # so there the install fetched Pyodide's wasm a second time (measured).
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(server.url)
        page.evaluate(WAIT_FOR_CONTROL)
        install, install_requests = served_bytes(list(server.lines), first.out)
        doubled, doubled_paths = twice(list(server.lines), first.out)
        server.stop()
        mark = len(server.lines)
        server.root = second.out
        server.start()
        page.evaluate(UPDATE)
        update, update_requests = served_bytes(server.lines[mark:], second.out)
        context.close()
    finally:
        server.stop()
    print(f"sent twice on the first visit: {doubled / 1e6:.1f} MB ({', '.join(doubled_paths) or 'nothing'})")
    return {"install": install, "install_requests": install_requests, "update": update,
            "update_requests": update_requests}


def main() -> int:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="openmasq-install-bench-") as tmp:
        first = build_site(BuildOptions(out=Path(tmp) / "site", repo=ROOT))
        second = second_build(first, Path(tmp))
        with sync_playwright() as playwright:
            got = measure(playwright, Path(tmp) / "profile", first, second)
    site = sum(f.size for f in first.manifest)
    mb = 1e6
    print(f"site (every file the build lists, models included): {site / mb:.1f} MB, {len(first.manifest)} files")
    print(f"{'':34} {'bytes':>10} {'requests':>9} {'/ site':>8}  target")
    print(f"{'precache (the app group)':34} {first.precache_bytes / mb:>8.1f}MB {len(first.precache) - 1:>9} "
          f"{first.precache_bytes / site:>8.3f}  <= 60 MB: {verdict(first.precache_bytes <= PRECACHE_TARGET_BYTES)}")
    print(f"{'first visit (boot + install)':34} {got['install'] / mb:>8.1f}MB {got['install_requests']:>9} "
          f"{got['install'] / site:>8.3f}  (the boot's files are revalidated, not fetched twice)")
    share = got["update"] / site
    print(f"{'update (one script changed)':34} {got['update'] / 1e3:>8.1f}kB {got['update_requests']:>9} "
          f"{share:>8.5f}  <= 0.01: {verdict(share <= UPDATE_SHARE_TARGET)}")
    ok = first.precache_bytes <= PRECACHE_TARGET_BYTES and share <= UPDATE_SHARE_TARGET
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
