"""Rich replies in the real page (issue 18, item 3): code blocks highlighted by highlight.js with their
language and a copy button that copies what the user reads (real values, not the model's fakes), a block
in an unknown language shown plain, math typeset by KaTeX from the site's own stylesheet and fonts,
dollar amounts left as prose, wide tables that scroll instead of breaking words, a 1 MB reply of all of
it; all inside the sanitiser and the CSP, and with the egress invariant of e2e/test_egress_links.py: a real
value is only ever in a text node, never in an attribute."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from e2e_support import DEFAULT_TIMEOUT_MS
from test_chat import LAPTOP, PHONE, add_provider, create_account, new_conversation, open_app, send, wait_for_reply
from test_egress_links import ATTRIBUTES_JS, MESSAGE, NAME, SENT, leaks
from test_memory import serious_violations

from openmasq.site.serve import BackgroundServer
from openmasq.testing.upstream import (
    SSE_HEADERS,
    Received,
    Reply,
    ScriptedUpstream,
    echo_script,
    last_user_text,
    openai_stream,
)

Fakes = dict[str, str]


class RichModel:
    """Answers each chat request with `reply(fakes)` (the fakes the user's text arrived with), streamed in
    pieces of `piece` characters."""

    def __init__(self) -> None:
        self.piece = 40
        self.reply: Callable[[Fakes], str] = lambda f: "Bonjour."
        self.fakes: Fakes = {}

    def __call__(self, received: Received) -> Reply:
        if received.method != "POST" or received.json().get("stream") is not True:
            return echo_script(received)
        found = SENT.search(last_user_text(received))
        self.fakes = found.groupdict() if found else {}
        text = self.reply(self.fakes) if found else "Je n'ai pas compris."
        return Reply(chunks=openai_stream([text[i:i + self.piece] for i in range(0, len(text), self.piece)]),
                     headers=SSE_HEADERS)


@pytest.fixture(scope="module")
def model() -> Iterator[tuple[ScriptedUpstream, RichModel]]:
    script = RichModel()
    with ScriptedUpstream(script, cors=True) as upstream:
        yield upstream, script


@pytest.fixture(scope="module")
def chat(browser: Any, built_site: Any, model: tuple[ScriptedUpstream, RichModel]) -> Iterator[Any]:
    """One account with the scripted provider for the module; every request of the context is kept."""
    server = BackgroundServer(built_site.out, port=0).start()
    context = browser.new_context(locale="fr-FR")
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url.rstrip("/"))
    urls: list[str] = []
    lock = threading.Lock()

    def keep(request: Any) -> None:
        with lock:
            urls.append(request.url)

    context.on("request", keep)
    try:
        page = open_app(context, server.url)
        create_account(page)
        add_provider(page, model[0].base_url)
        page.click("[data-route=chat]")
        page.urls = urls  # type: ignore[attr-defined]
        page.site_url = server.url  # type: ignore[attr-defined]
        yield page
    finally:
        context.close()
        server.stop()


def answer(page: Any, model: tuple[ScriptedUpstream, RichModel], reply: Callable[[Fakes], str]) -> Any:
    """A new conversation whose one send the model answers with `reply`; the finished reply."""
    model[1].reply = reply
    new_conversation(page)
    send(page, MESSAGE)
    return wait_for_reply(page)


def attribute_leaks(page: Any) -> list[str]:
    return leaks("\n".join(page.evaluate(ATTRIBUTES_JS)))


def code_reply(f: Fakes) -> str:
    return (
        "Voici le script :\n\n"
        "```python\n"
        f"def greet(name: str = \"{f['name']}\") -> str:\n"
        "    # say hello\n"
        "    return f\"Bonjour {name}\"\n"
        "```\n\n"
        "Et en klingon :\n\n"
        "```klingon\n"
        f"Qapla' {f['name']} <b>pas du html</b>\n"
        "```\n\n"
        "```\n"
        f"{f['email']}\n"
        "```\n"
    )


def test_code_blocks_are_highlighted_labelled_and_copy_the_real_text_the_user_sees(
    chat: Any, model: tuple[ScriptedUpstream, RichModel], shoot: Any
) -> None:
    page = chat
    reply = answer(page, model, code_reply)
    blocks = reply.locator(".code-block")
    assert blocks.count() == 3
    python, klingon, plain = blocks.nth(0), blocks.nth(1), blocks.nth(2)
    assert python.locator(".code-lang").inner_text() == "python"
    assert python.locator("code .hljs-keyword", has_text="def").count() == 1
    assert python.locator("code .hljs-string").first.inner_text().strip('"') == NAME  # restored, then highlighted
    # An unknown language: its label as written, the code plain (no token spans), its HTML shown as text.
    assert klingon.locator(".code-lang").inner_text() == "klingon"
    assert klingon.locator("code span").count() == 0 and klingon.locator("code b").count() == 0
    assert klingon.locator("code").inner_text().strip() == f"Qapla' {NAME} <b>pas du html</b>"
    assert plain.locator(".code-lang").inner_text() == "texte"
    assert attribute_leaks(page) == []

    python.locator("[data-action=copy-code]").click()
    page.locator(".toast", has_text="Code copié").wait_for()
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == python.locator("code").inner_text()
    assert f'name: str = "{NAME}"' in copied and model[1].fakes["name"] not in copied
    shoot(page, "rich-code", full_page=False)
    assert page.ui_errors == []


def math_reply(f: Fakes) -> str:
    return (
        "Le théorème : $a^2 + b^2 = c^2$, et \\(e^{i\\pi} + 1 = 0\\).\n\n"
        "$$\n\\int_0^1 x^2\\,dx = \\frac{1}{3}\n$$\n\n"
        f"Pour {f['name']} : $\\text{{{f['name']}}} \\times 2$ et $\\textcolor{{red}}{{y}}$.\n\n"
        "Le café coûte $5 et le repas $10, soit $15 en tout ; US$20 ou 30$ ailleurs.\n\n"
        "Une erreur : $\\frac{1}{$ reste lisible.\n"
    )


def test_math_is_typeset_with_the_sites_fonts_and_dollar_amounts_stay_prose(
    chat: Any, model: tuple[ScriptedUpstream, RichModel], shoot: Any
) -> None:
    page = chat
    before = len(page.urls)
    reply = answer(page, model, math_reply)
    markdown = reply.locator(".markdown")
    assert markdown.locator(".math-inline .katex").count() == 4
    assert markdown.locator(".math-display .katex-display").count() == 1
    text = markdown.inner_text()
    assert "Le café coûte $5 et le repas $10, soit $15 en tout ; US$20 ou 30$ ailleurs." in text
    # The TeX was typeset from its restored text: the real name in the formula, only in text nodes.
    annotations = markdown.locator("annotation").all_text_contents()
    assert any(NAME in a for a in annotations) and not any(model[1].fakes["name"] in a for a in annotations)
    assert attribute_leaks(page) == []
    assert markdown.locator("[style*=color]").count() == 0  # colour commands lose their colour
    # A formula KaTeX refuses is shown as written, not lost and not in an error's title.
    assert markdown.locator(".math-error").inner_text() == "$\\frac{1}{$"
    assert markdown.locator("[title]").count() == 0
    # KaTeX's layout came through the CSP (its inline styles are set through the CSSOM, and survive the
    # saved copy cloned from the streamed one): a strut has its height.
    struts = markdown.locator(".katex .katex-strut").evaluate_all(
        "(els) => els.map((el) => [el.style.height, getComputedStyle(el).height])")
    assert struts and all(inline and computed not in ("auto", "0px") for inline, computed in struts)
    page.evaluate("() => document.fonts.ready")
    fonts = [url for url in page.urls[before:] if url.endswith(".woff2")]
    assert fonts and all(url.startswith(page.site_url + "vendor/katex/fonts/KaTeX_") for url in fonts)
    assert all(url.startswith((page.site_url, model[0].origin)) for url in page.urls)
    shoot(page, "rich-math", full_page=False)
    assert page.ui_errors == []  # no CSP refusal (an inline style or a remote font would log one)


WORDS = ("Anticonstitutionnellement", "Intergouvernementalisation", "Hyperspécialisation",
         "Désinstitutionnalisation", "Incompréhensibilité", "Électroencéphalogramme")


def table_reply(f: Fakes) -> str:
    header = "| " + " | ".join(f"Colonne {i}" for i in range(len(WORDS))) + " |"
    rule = "|" + "---|" * len(WORDS)
    row = "| " + " | ".join(WORDS) + " |"
    return f"Tableau pour {f['name']} :\n\n{header}\n{rule}\n{row}\n{row}\n"


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_a_wide_table_scrolls_sideways_with_its_words_whole_and_the_reply_passes_axe(
    chat: Any, model: tuple[ScriptedUpstream, RichModel], shoot: Any, size: str
) -> None:
    page = chat
    reply = answer(page, model, table_reply)  # sent at laptop size, read at the size tested
    page.set_viewport_size(PHONE if size == "phone" else LAPTOP)
    try:
        box = reply.locator(".table-scroll")
        assert box.count() == 1
        scroll = box.evaluate("(el) => [el.scrollWidth, el.clientWidth, el.tabIndex]")
        if size == "phone":
            assert scroll[0] > scroll[1]  # wider than the bubble: it scrolls
        assert scroll[2] == 0  # reachable from the keyboard
        # Each cell's word sits on one line: no word broken.
        lines = box.evaluate("""(el) => [...el.querySelectorAll('td')].map((td) => {
            const range = document.createRange(); range.selectNodeContents(td);
            return range.getClientRects().length; })""")
        assert lines and set(lines) == {1}
        shoot(page, f"rich-table-{size}", full_page=False)
        page.set_viewport_size(LAPTOP)
        answer(page, model, code_reply)
        answer(page, model, math_reply)
        page.set_viewport_size(PHONE if size == "phone" else LAPTOP)
        page.locator("[data-role=assistant]").last.scroll_into_view_if_needed()
        assert serious_violations(page, page.site_url) == []
        shoot(page, f"rich-code-math-{size}", full_page=False)
    finally:
        page.set_viewport_size(LAPTOP)


FILLER = "Une phrase ordinaire, sans rien de particulier, qui remplit le paragraphe comme un modèle bavard. " * 3


def big_reply(f: Fakes) -> tuple[str, dict[str, int]]:
    out: list[str] = []
    counts = {"math": 0, "code": 0, "table": 0}
    n = 0
    while sum(map(len, out)) < 1_000_000:
        out.append(f"Paragraphe {n} : {f['name']} calcule $x_{{{n}}} = {n}^2$ pour $5 seulement. {FILLER}\n\n")
        counts["math"] += 1
        if n % 8 == 0:
            out.append(f"```python\ndef step_{n}(x):\n    return x * {n}  # {f['name']}\n```\n\n")
            counts["code"] += 1
        if n % 20 == 0:
            out.append(f"| n | carré | qui |\n|---|---|---|\n| {n} | {n * n} | {f['name']} |\n\n")
            counts["table"] += 1
        n += 1
    return "".join(out) + "FIN", counts


def test_a_one_megabyte_reply_of_code_math_and_tables_renders_whole_and_the_page_stays_responsive(
    chat: Any, model: tuple[ScriptedUpstream, RichModel]
) -> None:
    page = chat
    counts: dict[str, int] = {}

    def reply(f: Fakes) -> str:
        text, found = big_reply(f)
        counts.update(found)
        return text

    model[1].piece = 65_536
    try:
        model[1].reply = reply
        new_conversation(page)
        send(page, MESSAGE)
        page.locator("article.streaming[data-role=assistant]").wait_for()
        assert page.evaluate("() => 1 + 1") == 2  # the page answers while the reply streams in
        last = wait_for_reply(page)
    finally:
        model[1].piece = 40
    markdown = last.locator(".markdown")
    found = markdown.evaluate("""(el) => ({math: el.querySelectorAll('.math-inline .katex').length,
        code: el.querySelectorAll('.code-block[data-language=python] code.hljs').length,
        table: el.querySelectorAll('.table-scroll > table').length,
        text: el.innerText.trimEnd().slice(-3)})""")
    assert found == {**counts, "text": "FIN"}
    assert re.search(r"pour \$5 seulement", markdown.evaluate("(el) => el.innerText.slice(0, 300)"))
    assert attribute_leaks(page) == []
    assert page.ui_errors == []
