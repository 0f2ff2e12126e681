"""Opening a long conversation in the chat (issue 18, "Bad input"): the time from the click on it in the
list to the first frame painted with its last turns on screen, for a conversation of 2,000 turns against
a baseline of 20 turns measured in the same run, in headless Chromium with the real page and workers.

Both conversations come in through Settings → backup (the JSON import), so they are stored, encrypted
and read back as any other. Their turns are paragraphs, lists and a code block every tenth reply, drawn
per run. Each run opens a one-turn conversation first, then the one measured: the click, the last
reply's text restored into the page, then two animation frames (the frame after it is painted).
Target: the 2,000-turn conversation's last turns painted within 500 ms.

Run in the dev venv:  $VENV/bin/python bench/render.py [--runs 5] [--turns 2000] [--web DIR]
(`--web DIR` measures another copy of web/, for instance the page before a change)."""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "tests" / "pyodide"))

from appsite import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

from openmasq.chat.backup import export_json  # noqa: E402
from openmasq.chat.conversation import Conversation, Message  # noqa: E402
from openmasq.redact import Vault  # noqa: E402
from openmasq.site.build import BuildOptions, build_site  # noqa: E402
from openmasq.site.serve import BackgroundServer  # noqa: E402

TARGET_MS = 500.0
BASELINE_TURNS = 20
TIMEOUT_MS = 600_000
PASSPHRASE = "banc rendu tortue 17"
WORDS = ("devis", "réunion", "jeudi", "budget", "livraison", "contrat", "planning", "équipe", "rapport",
         "maquette", "client", "retard", "facture", "version", "serveur", "tableau", "courriel", "relance")

# Opens the conversation `id` from the list and resolves with the milliseconds from the click to the
# frame after the one where its last reply's text is in the page.
OPEN_AND_TIME = """async ({ id, lastId }) => {
  const button = document.querySelector(`.conv[data-conv-id="${id}"] .conv-open`);
  const painted = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  const ready = () => {
    const el = document.querySelector(`article[data-message-id="${lastId}"] .markdown`);
    return el && el.textContent.trim().length > 0;
  };
  const start = performance.now();
  const shown = new Promise((resolve) => {
    const observer = new MutationObserver(() => { if (ready()) { observer.disconnect(); resolve(); } });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  button.click();
  await shown;
  await painted();
  return performance.now() - start;
}"""


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 18))).capitalize() + "."


def reply_text(rng: random.Random, index: int) -> str:
    parts = [sentence(rng), f"- {sentence(rng)}\n- {sentence(rng)}", sentence(rng)]
    if index % 10 == 0:
        parts.append("```python\n" + "\n".join(f"total_{i} = {rng.randint(1, 999)} * {i}" for i in range(6)) + "\n```")
    return "\n\n".join(parts)


def conversation(rng: random.Random, conv_id: str, title: str, turns: int, now: int) -> Conversation:
    messages = []
    for i in range(turns):
        role = "user" if i % 2 == 0 else "assistant"
        text = sentence(rng) if role == "user" else reply_text(rng, i)
        messages.append(Message(f"{conv_id}-m{i}", role, text, at=now - (turns - i) * 60_000,
                                redactions=0 if role == "user" else None, wire=text if role == "assistant" else None))
    return Conversation(conv_id, Vault.new(rng.randbytes(32), "fake"), title=title, created_at=now - turns * 60_000,
                        updated_at=now, messages=messages)


def backup_file(folder: Path, turns: int, rng: random.Random) -> tuple[Path, dict[str, tuple[str, str]]]:
    now = 1_796_000_000_000
    convs = {"long": conversation(rng, "bench-long", f"Longue ({turns} tours)", turns, now),
             "short": conversation(rng, "bench-short", f"Courte ({BASELINE_TURNS} tours)", BASELINE_TURNS, now - 1),
             "other": conversation(rng, "bench-other", "Autre", 2, now - 2)}
    path = folder / "bench-conversations.json"
    path.write_text(export_json(convs.values(), now), encoding="utf-8")
    return path, {name: (c.id, c.messages[-1].id) for name, c in convs.items()}


def prepare(page: Any, url: str, backup: Path) -> None:
    page.goto(url)
    page.wait_for_selector("#acct-label", timeout=TIMEOUT_MS)
    page.fill("#acct-label", "Banc")
    page.fill("#acct-pass", PASSPHRASE)
    page.fill("#acct-confirm", PASSPHRASE)
    page.click("form button[type=submit]")
    page.wait_for_selector(".shell .chat", timeout=TIMEOUT_MS)
    page.click("[data-route=settings]")
    page.set_input_files("#backup-file", str(backup))
    page.locator("[data-testid=backup-report]").wait_for(timeout=TIMEOUT_MS)
    page.click("[data-route=chat]")
    page.locator(".conv[data-conv-id=bench-long]").wait_for(timeout=TIMEOUT_MS)


def measure(page: Any, ids: dict[str, tuple[str, str]], runs: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"short": [], "long": []}
    for _ in range(runs):
        for name in ("short", "long"):
            other_id, other_last = ids["other"]
            page.evaluate(OPEN_AND_TIME, {"id": other_id, "lastId": other_last})
            conv_id, last_id = ids[name]
            out[name].append(float(page.evaluate(OPEN_AND_TIME, {"id": conv_id, "lastId": last_id})))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--turns", type=int, default=2_000)
    parser.add_argument("--web", type=Path, default=None, help="another copy of web/ to build and measure")
    parser.add_argument("--seed", type=int, default=None, help="the texts' seed (drawn per run by default)")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    rng = random.Random(seed)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        site = build_site(BuildOptions(out=folder / "site", repo=ROOT, web=args.web)).out
        backup, ids = backup_file(folder, args.turns, rng)
        server = BackgroundServer(site, port=0).start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_context().new_page()
                page.set_viewport_size({"width": 1280, "height": 800})
                page.set_default_timeout(TIMEOUT_MS)
                prepare(page, server.url, backup)
                times = measure(page, ids, args.runs)
                shown = page.evaluate("document.querySelectorAll('[data-testid=messages] article').length")
                browser.close()
        finally:
            server.stop()
    short, long = statistics.median(times["short"]), statistics.median(times["long"])
    print(json.dumps({"seed": seed, "runs": args.runs, "web": str(args.web or "web/"), "ms": times}, indent=1))
    print(f"open to first paint of the last turns, median of {args.runs} (1280x800, headless Chromium):")
    print(f"  baseline, {BASELINE_TURNS} turns: {short:8.1f} ms")
    print(f"  {args.turns} turns:           {long:8.1f} ms   ratio {long / short:.2f}   ({shown} turns in the page)")
    met = long <= TARGET_MS
    print(f"target <= {TARGET_MS:.0f} ms for {args.turns} turns: {'MET' if met else 'NOT MET'}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
