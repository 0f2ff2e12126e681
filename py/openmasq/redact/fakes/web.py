"""Fake domains, URLs, e-mail addresses, usernames and file paths: the public, generic parts
(TLD, webmail provider, platform host, folder names) stay; the personal parts are replaced."""

from __future__ import annotations

import random
import re
from typing import NamedTuple
from urllib.parse import urlsplit, urlunsplit

from ...patterns import deferred
from ..text import strip_accents
from ._shape import distinct, match_case, redraw_digits, scramble, scramble_word
from .names import fake_first_name, fake_surname, is_first_name, is_surname
from .orgs import invented_word

# Public suffixes made of two labels: the registrable name is the label before them.
SECOND_LEVEL_SUFFIXES = frozenset({
    "co.uk", "org.uk", "ac.uk", "gov.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "sch.uk", "nhs.uk",
    "co.jp", "ne.jp", "or.jp", "ac.jp", "com.au", "net.au", "org.au", "edu.au", "gov.au", "co.nz",
    "org.nz", "com.br", "net.br", "org.br", "com.mx", "com.ar", "co.za", "com.cn", "com.tr", "co.in",
    "co.il", "com.sg", "com.hk", "gouv.fr", "asso.fr", "co.kr", "gv.at", "co.at", "or.at", "com.es",
    "org.es", "com.pt", "com.pl", "co.id", "com.tw", "com.my", "com.ph", "co.th", "com.ua", "com.ru",
})
# Mailbox providers: an address there says nothing about the person's employer, so the domain
# is kept and only the local part is faked.
WEBMAIL_DOMAINS = frozenset({
    "gmail.com", "googlemail.com", "outlook.com", "outlook.fr", "outlook.de", "outlook.es", "outlook.it",
    "hotmail.com", "hotmail.fr", "hotmail.co.uk", "hotmail.de", "hotmail.es", "hotmail.it", "live.com",
    "live.fr", "live.co.uk", "msn.com", "yahoo.com", "yahoo.fr", "yahoo.co.uk", "yahoo.de", "yahoo.es",
    "yahoo.it", "ymail.com", "rocketmail.com", "aol.com", "aol.fr", "icloud.com", "me.com", "mac.com",
    "orange.fr", "wanadoo.fr", "free.fr", "sfr.fr", "neuf.fr", "laposte.net", "bbox.fr", "numericable.fr",
    "club-internet.fr", "aliceadsl.fr", "cegetel.net", "noos.fr", "voila.fr", "gmx.de", "gmx.net",
    "gmx.fr", "gmx.com", "gmx.at", "gmx.ch", "web.de", "t-online.de", "freenet.de", "posteo.de",
    "mailbox.org", "proton.me", "protonmail.com", "protonmail.ch", "pm.me", "tutanota.com", "tuta.io",
    "zoho.com", "yandex.ru", "yandex.com", "mail.ru", "libero.it", "virgilio.it", "tiscali.it",
    "alice.it", "bluewin.ch", "skynet.be", "telenet.be", "terra.es", "fastmail.com", "hey.com",
    "qq.com", "163.com", "seznam.cz", "wp.pl", "o2.pl", "onet.pl", "sapo.pt", "btinternet.com",
    "sky.com", "virginmedia.com", "comcast.net", "verizon.net", "att.net", "sbcglobal.net",
})
# Hosts whose URLs carry the person in the path ("linkedin.com/in/jean-dupont"): host kept.
PLATFORM_HOSTS = frozenset({
    "linkedin.com", "github.com", "gitlab.com", "bitbucket.org", "facebook.com", "fb.com", "twitter.com",
    "x.com", "instagram.com", "youtube.com", "youtu.be", "tiktok.com", "reddit.com", "medium.com",
    "google.com", "google.fr", "dropbox.com", "notion.so", "notion.site", "wikipedia.org", "mastodon.social",
    "bsky.app", "threads.net", "pinterest.com", "vimeo.com", "twitch.tv", "stackoverflow.com",
    "calendly.com", "doctolib.fr", "malt.fr", "welcometothejungle.com", "leboncoin.fr", "figma.com",
    "trello.com", "atlassian.net", "slack.com", "zoom.us", "teams.microsoft.com", "sharepoint.com",
    "onedrive.live.com", "wetransfer.com", "npmjs.com", "pypi.org", "huggingface.co", "substack.com",
})
GENERIC_SUBDOMAINS = frozenset({
    "www", "www2", "mail", "smtp", "imap", "mx", "webmail", "m", "mobile", "app", "apps", "api", "blog",
    "shop", "store", "portal", "intranet", "extranet", "cloud", "my", "login", "auth", "sso", "docs",
    "support", "help", "news", "static", "cdn", "img", "assets", "en", "fr", "de", "es", "it", "nl",
    "pt", "uk", "us", "eu", "dev", "staging", "test", "admin", "secure", "files", "drive", "meet",
})
# Role mailboxes say nothing about a person: "contact@" stays "contact@" on a faked domain.
ROLE_LOCAL_PARTS = frozenset({
    "contact", "info", "infos", "admin", "administration", "support", "hello", "bonjour", "hallo", "hola",
    "noreply", "no-reply", "donotreply", "sales", "ventes", "rh", "hr", "jobs", "recrutement", "careers",
    "compta", "comptabilite", "accounting", "billing", "facturation", "factures", "invoices", "accueil",
    "secretariat", "direction", "webmaster", "postmaster", "team", "equipe", "office", "mail", "service",
    "commercial", "communication", "presse", "press", "marketing", "legal", "juridique", "dpo", "privacy",
    "security", "abuse", "help", "newsletter", "notifications", "reservation", "reservations", "booking",
})
# Folder and URL path words that describe structure, not a person.
GENERIC_SEGMENTS = frozenset({
    "api", "v1", "v2", "v3", "v4", "docs", "doc", "blog", "news", "index", "home", "about", "contact",
    "login", "signin", "signup", "logout", "search", "products", "product", "shop", "cart", "account",
    "accounts", "user", "users", "profile", "profiles", "settings", "static", "assets", "img", "images",
    "css", "js", "download", "downloads", "files", "file", "public", "share", "shared", "s", "d", "u",
    "in", "p", "pub", "edit", "view", "page", "pages", "wiki", "issues", "pull", "pulls", "blob", "tree",
    "main", "master", "raw", "watch", "status", "post", "posts", "article", "articles", "help", "support",
    "faq", "en", "fr", "de", "es", "it", "nl", "pt", "en-us", "fr-fr", "app", "dashboard", "admin",
    "company", "school", "groups", "group", "events", "event", "jobs", "job", "readme", "license",
    "src", "lib", "bin", "tmp", "var", "etc", "opt", "usr", "library", "mnt", "media",
    "volumes", "private", "desktop", "documents", "pictures", "music", "videos", "movies",
    "bureau", "téléchargements", "telechargements", "musique", "vidéos", "appdata", "local",
    "roaming", "program files", "program files (x86)", "windows", "system32", "onedrive", "dropbox",
    "google drive", "icloud drive", "application support", "workspace", "projects", "projets", "code",
    "dev", "git", "repos", "node_modules", ".config", ".ssh", ".local", ".cache", "build", "dist",
    "config", "data", "backup", "backups", "archive", "archives", "temp", "logs", "log", "scripts",
    "test", "tests", "www", "html", "cgi-bin", "wp-content", "uploads", "invoice", "invoices", "factures",
})
# Longest real host name (DNS), e-mail address (RFC 5321) and a generous URL; anything longer
# is scrambled as a whole (linear on hostile input).
MAX_HOST_LENGTH = 253
MAX_EMAIL_LENGTH = 320
MAX_URL_LENGTH = 4096
_LOCAL_SEPARATORS = deferred(r"([._\-])")
_LETTERS_THEN_DIGITS = deferred(r"([^\W\d_]*)(\d*)")


def _slug(value: str) -> str:
    return "".join(ch for ch in strip_accents(value).lower() if ch.isascii() and ch.isalnum())


def split_host(host: str) -> tuple[list[str], str, str]:
    """("mail.atelier-torbel.co.uk") -> (["mail"], "atelier-torbel", "co.uk")."""
    labels = host.split(".")
    if len(labels) < 2:
        return [], host, ""
    suffix_size = 2 if len(labels) >= 3 and ".".join(labels[-2:]).lower() in SECOND_LEVEL_SUFFIXES else 1
    suffix = ".".join(labels[-suffix_size:])
    rest = labels[:-suffix_size]
    return rest[:-1], rest[-1], suffix


def is_webmail(domain: str) -> bool:
    return domain.lower().rstrip(".") in WEBMAIL_DOMAINS


def _is_platform(host: str) -> bool:
    lowered = host.lower()
    return any(lowered == h or lowered.endswith("." + h) for h in PLATFORM_HOSTS)


def _fake_label(label: str, rng: random.Random, hint: str | None) -> str:
    """A registrable label of about the same length, hyphenated like the real one."""
    if hint:
        words = [_slug(w) for w in re.split(r"[\s\-_.]+", hint) if _slug(w)]
        if words:
            joined = "-".join(words) if "-" in label else "".join(words)
            return match_case(label, joined)
    parts = label.split("-")
    fake = "-".join(redraw_digits(p, rng) if p.isdigit() else invented_word(len(p), rng).lower()
                    for p in parts)
    return match_case(label, fake)


def registrable(host: str) -> str:
    """The registrable part of a host ("www.atelier-torbel.co.uk" -> "atelier-torbel.co.uk")."""
    _, label, suffix = split_host(host.lower().rstrip("."))
    return f"{label}.{suffix}" if suffix else ""


def _fake_host(host: str, rng: random.Random, hint: str | None, fixed: str | None = None) -> str:
    """Generic subdomains kept, others invented; the registrable name from `hint` or invented,
    or `fixed` as a whole (the fake this real domain already has in the conversation)."""
    subdomains, label, suffix = split_host(host)
    if not suffix:
        return _fake_label(label, rng, hint)
    kept = [s if s.lower() in GENERIC_SUBDOMAINS else _fake_label(s, rng, None) for s in subdomains]
    if fixed:
        return ".".join([*kept, match_case(label, fixed)])
    return ".".join([*kept, _fake_label(label, rng, hint), suffix])


def fake_domain(real: str, rng: random.Random, *, name_hint: str | None = None, domain_fake: str | None = None) -> str:
    """Same TLD (and second level such as .co.uk) and generic subdomains; the name replaced by
    `name_hint` (a fake organisation) or an invented label of similar length."""
    if len(real) > MAX_HOST_LENGTH:
        return scramble(real, rng)
    host = real.strip()
    trailing = "." if host.endswith(".") else ""
    host = host.rstrip(".")
    return distinct(real, rng, lambda r: _fake_host(host, r, name_hint, domain_fake) + trailing)


# --- e-mail ----------------------------------------------------------------------------------

def _name_roles(alphas: list[str]) -> list[str] | None:
    """Roles of the letter runs of a local part ("first", "last", "initial"), or None when it
    does not look like a person's name."""
    words = [a for a in alphas if a]
    if not words:
        return None
    if len(words) >= 2:
        roles = ["first"] + ["middle"] * (len(words) - 2) + ["last"]
        if is_surname(words[0]) and not is_first_name(words[0]) and is_first_name(words[-1]):
            roles = ["last"] + ["middle"] * (len(words) - 2) + ["first"]
        return ["initial" if len(w) == 1 else role for w, role in zip(words, roles, strict=True)]
    word = words[0]
    if len(word) >= 3 and is_first_name(word):  # "marie@" is far more often a first name
        return ["first"]
    if len(word) >= 4 and is_surname(word[1:]) and not is_first_name(word):
        return ["flast"]
    for cut in range(3, len(word) - 2):
        if is_first_name(word[:cut]) and is_surname(word[cut:]):
            return ["firstlast"]
    return None


def _person_slugs(
    alphas: list[str], roles: list[str], rng: random.Random, hint: str | None
) -> tuple[str, str]:
    """(first, last) slugs of the fake person: from the hint, else fresh same-gender names."""
    if hint:
        words = [_slug(w) for w in re.split(r"[\s._\-]+", hint) if _slug(w)]
        if words:
            return words[0], words[-1] if len(words) > 1 else _slug(fake_surname("Martin", rng))
    words = [a for a in alphas if a]
    first_real = next((w for w, r in zip(words, roles, strict=True) if r == "first"), "")
    last_real = next((w for w, r in zip(words, roles, strict=True) if r == "last"), "")
    if roles == ["flast"]:
        last_real = words[0][1:]
    if roles == ["firstlast"]:
        cut = next(c for c in range(3, len(words[0]) - 2) if is_first_name(words[0][:c]))
        first_real, last_real = words[0][:cut], words[0][cut:]
    first = fake_first_name(first_real.capitalize(), rng) if first_real else fake_first_name("Camille", rng)
    last = fake_surname(last_real.capitalize(), rng) if last_real else fake_surname("Martin", rng)
    return _slug(first), _slug(last)


def _fake_local(local: str, rng: random.Random, hint: str | None, must_change: bool) -> str:
    pieces = _LOCAL_SEPARATORS.split(local)
    words = pieces[0::2]
    splits = [_LETTERS_THEN_DIGITS.fullmatch(w) for w in words]
    if local.lower() in ROLE_LOCAL_PARTS and not must_change:
        return local
    if not all(splits):
        return scramble_word(local, rng)
    alphas = [m.group(1) for m in splits if m]
    roles = _name_roles(alphas)
    if roles is None:
        return scramble_word(local, rng)
    first, last = _person_slugs(alphas, roles, rng, hint)
    by_role = {"first": first, "middle": first, "last": last, "initial": "", "flast": first[:1] + last,
               "firstlast": first + last}
    named = iter(roles)
    out = list(pieces)
    position = 0
    for i, m in enumerate(splits):
        assert m is not None
        letters, digits = m.group(1), m.group(2)
        new = letters
        if letters:
            role = next(named)
            new = by_role[role] or (last[:1] if position > 0 else first[:1])
            new = match_case(letters, new)
            position += 1
        out[2 * i] = new + redraw_digits(digits, rng)
    return "".join(out)


# Obfuscated addresses ("tom dot harris at gmail dot com", "p . lambert @ orange . fr",
# "marco[at]libero[dot]it", "marie%40orange.fr"): their fake is written with the same
# obfuscation, so the text reads as the user wrote it and nothing hints at a substitution.
_PLAIN_EMAIL = deferred(r"[^@\s\[\](){}<>]+@[^@\s\[\](){}<>]+")
_OBF_AT_TOKEN = deferred(
    r"(?i)[ ]*[\[({<][ ]*(?:at|@|arobase|arroba|chiocciola|chez|ät|klammeraffe)[ ]*[\])}>][ ]*"
    r"|[ ]+(?:at|arroba|chiocciola|arobase)[ ]+|[ ]*@[ ]*|%40"
)
_OBF_DOT_TOKEN = deferred(
    r"(?i)[ ]*[\[({<][ ]*(?:dot|point|punto|punkt|\.)[ ]*[\])}>][ ]*|[ ]+(?:dot|point|punto|punkt)[ ]+|[ ]*\.[ ]*"
)


class _Obfuscation(NamedTuple):
    plain: str
    at: str
    local_dots: list[str]
    domain_dots: list[str]


def _split_dots(part: str) -> tuple[list[str], list[str]]:
    words, dots, cursor = [], [], 0
    for m in _OBF_DOT_TOKEN.finditer(part):
        words.append(part[cursor : m.start()])
        dots.append(m.group(0))
        cursor = m.end()
    words.append(part[cursor:])
    return words, dots


def _obfuscation(value: str) -> _Obfuscation | None:
    """How an obfuscated address is written, with its plain form; None for a plain address or
    a value that is no address."""
    if _PLAIN_EMAIL.fullmatch(value):
        return None
    at = _OBF_AT_TOKEN.search(value)
    if at is None or at.start() == 0 or at.end() == len(value):
        return None
    local_words, local_dots = _split_dots(value[: at.start()])
    domain_words, domain_dots = _split_dots(value[at.end() :])
    if not all(local_words) or not all(domain_words) or len(domain_words) < 2:
        return None
    plain = ".".join(local_words) + "@" + ".".join(domain_words)
    if plain == value:  # "0@@.0": no plain address under it (and no end to reading it again)
        return None
    return _Obfuscation(plain, at.group(0), local_dots, domain_dots)


def plain_email(value: str) -> str | None:
    """The plain form of an obfuscated address ("tom dot harris at gmail dot com" ->
    "tom.harris@gmail.com"), None when `value` is plain already or no address."""
    found = _obfuscation(value)
    return found.plain if found else None


def _rejoin(words: list[str], dots: list[str], fallback: str) -> str:
    out = [words[0]]
    for i, word in enumerate(words[1:]):
        out.append(dots[i] if i < len(dots) else (dots[0] if dots else fallback))
        out.append(word)
    return "".join(out)


def _obfuscated_like(fake_plain: str, how: _Obfuscation) -> str:
    local, _, domain = fake_plain.rpartition("@")
    fallback = (how.local_dots or how.domain_dots or ["."])[0]
    return (_rejoin(local.split("."), how.local_dots, fallback) + how.at
            + _rejoin(domain.split("."), how.domain_dots, fallback))


def fake_email(
    real: str, rng: random.Random, *, local_hint: str | None = None, domain_hint: str | None = None,
    domain_fake: str | None = None,
) -> str:
    """first.last / first_last / flast local parts rebuilt from the fake person (`local_hint`) or
    fresh same-gender names; the domain from `domain_hint` or an invented one with the same
    TLD; webmail domains (gmail.com, orange.fr...) and role mailboxes (contact@) kept.
    `domain_fake`: the fake registrable domain this conversation already gave the real one.
    An obfuscated address gets a fake obfuscated the same way."""
    how = _obfuscation(real) if len(real) <= MAX_EMAIL_LENGTH else None
    if how is not None:
        plain = fake_email(how.plain, rng, local_hint=local_hint, domain_hint=domain_hint, domain_fake=domain_fake)
        return distinct(real, rng, lambda _r: _obfuscated_like(plain, how))
    local, at, domain = real.rpartition("@")
    if not at or len(real) > MAX_EMAIL_LENGTH:
        return fake_username(real, rng)
    base, plus, tag = local.partition("+")
    keep_domain = is_webmail(domain)

    def make(r: random.Random) -> str:
        new_domain = domain if keep_domain else _fake_host(domain, r, domain_hint, domain_fake)
        return _fake_local(base, r, local_hint, keep_domain) + plus + tag + "@" + new_domain

    return distinct(real, rng, make)


# --- usernames, URLs and paths ---------------------------------------------------------------------

def fake_username(real: str, rng: random.Random) -> str:
    """Each letter run replaced by a pronounceable run of the same cases, digits redrawn,
    "@", "_", "." and "-" kept."""
    return distinct(real, rng, lambda r: scramble_word(real, r))


def _fake_segment(segment: str, rng: random.Random) -> str:
    """A path or URL segment: generic words kept, the extension kept, the rest scrambled."""
    if not segment or segment.casefold() in GENERIC_SEGMENTS or re.fullmatch(r"[A-Za-z]:", segment):
        return segment
    stem, dot, extension = segment.rpartition(".")
    if dot and stem and 1 <= len(extension) <= 5 and extension.isalnum():
        if stem.casefold() in GENERIC_SEGMENTS:
            return segment
        return scramble_word(stem, rng) + dot + extension
    return scramble_word(segment, rng)


def _fake_query(query: str, rng: random.Random) -> str:
    pairs = query.split("&")
    out: list[str] = []
    for pair in pairs:
        key, eq, value = pair.partition("=")
        out.append(key + eq + scramble_word(value, rng) if eq else _fake_segment(pair, rng))
    return "&".join(out)


def _fake_path_text(path: str, rng: random.Random) -> str:
    return "/".join(_fake_segment(s, rng) for s in path.split("/"))


def fake_url(real: str, rng: random.Random, *, domain_hint: str | None = None, domain_fake: str | None = None) -> str:
    """Scheme, port, TLD, generic path words and extensions kept; the host name (unless a public
    platform whose path names the person), personal path segments, query values and fragment
    replaced."""
    if len(real) > MAX_URL_LENGTH:
        return scramble(real, rng)
    try:
        parts = urlsplit(real if "//" in real else "//" + real)
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:  # not a URL after all ("host:notaport", bad IPv6 brackets)
        return fake_username(real, rng)
    host = parts.hostname or ""
    original_host = parts.netloc.rpartition("@")[2].split(":")[0] if parts.netloc else ""

    def make(r: random.Random) -> str:
        new_path = _fake_path_text(parts.path, r)
        new_query = _fake_query(parts.query, r) if parts.query else ""
        new_fragment = scramble_word(parts.fragment, r) if parts.fragment else ""
        personal_rest = (new_path, new_query, new_fragment) != (parts.path, parts.query, parts.fragment)
        keep_host = _is_platform(host) and personal_rest
        keep = keep_host or not original_host
        new_host = original_host if keep else _fake_host(original_host, r, domain_hint, domain_fake)
        userinfo, at, _ = parts.netloc.rpartition("@")
        new_userinfo = scramble_word(userinfo, r) + at if at else ""
        netloc = new_userinfo + new_host + port if parts.netloc else ""
        rebuilt = urlunsplit((parts.scheme, netloc, new_path, new_query, new_fragment))
        return rebuilt if "//" in real else rebuilt.removeprefix("//")

    return distinct(real, rng, make)


_PATH_SEPARATORS = deferred(r"([/\\])")


def fake_path(real: str, rng: random.Random) -> str:
    """Root, drive, separators, generic folders (Documents, Desktop, AppData...) and extensions
    kept; user names and personal folder and file names replaced segment by segment."""
    pieces = _PATH_SEPARATORS.split(real)

    def make(r: random.Random) -> str:
        return "".join(p if i % 2 else _fake_segment(p, r) for i, p in enumerate(pieces))

    return distinct(real, rng, make)
