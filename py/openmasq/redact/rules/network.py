"""Network identifiers: URLs and personal-looking bare domains, IPv4, IPv6 and MAC addresses.
Reserved ranges and famous domains are kept: policy decides what is public."""

from __future__ import annotations

import ipaddress
import itertools

from ...patterns import deferred
from ._base import Hit, is_word_char, lowered, near_long_numbers, starts_token, windowed_matches

# --- URLs and bare domains -----------------------------------------------------------------

# Searched in the lower-cased text (same offsets); the scheme must start a token.
_URL = deferred(r"(?:https?://|www\.)[^\s<>\"'`{}|\\^\[\]]{1,2048}")
_URL_TRAILING = ".,;:!?*'\"»”’"

# Top-level domains people put in a personal address, minus those that read as file extensions
# ("rapport.pdf" never matches; "main.rs", "script.sh", "notes.md", "app.zip" are left out too)
# and those that read as attribute access in code ("user.name", "self.email", "this.page").
# Lower-case only: "la fin.De plus" is a missing space, not a host.
_TLDS = (
    "com|org|net|edu|gov|info|biz|pro|eu|fr|de|uk|es|it|be|ch|at|nl|lu|pt|ie|dk|se|no|fi|"
    "pl|cz|sk|hu|ro|bg|gr|hr|si|ee|lt|lv|us|ca|mx|br|ar|cl|au|nz|jp|cn|kr|tw|hk|sg|ru|ua|tr|ma|tn|"
    "dz|sn|ci|re|io|ai|co|me|tv|fm|dev|tech|blog|online|website|shop|cloud|studio|photography|"
    "xyz|paris|bzh|alsace|corsica|berlin|london|swiss|immo|consulting|agency|solutions|fit|bio|eco"
)
_TLD_HIT = deferred(rf"\.(?:{_TLDS})(?![\w-]|\.[A-Za-z0-9])")
_LABEL = deferred(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
_LABEL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
_PATH = deferred(r"/[^\s<>\"'`{}|\\^\[\]]{0,512}")
_MAX_LABELS = 6
# Second-level words that are abbreviations, not hosts ("e.g", "i.e" never reach a TLD anyway).
_NOT_HOSTS = frozenset({"e", "i", "cf", "p", "pp", "ex", "vs", "etc", "nb", "ps"})


def find_urls(text: str) -> list[Hit]:
    """http(s) and www. URLs (score 1.0); trailing sentence punctuation is left out."""
    low = lowered(text)
    if "http" not in low and "www." not in low:
        return []
    hits: list[Hit] = []
    for m in _URL.finditer(low):
        if not starts_token(text, m.start(), "@."):
            continue
        end = _url_end(text, m.start(), m.end())
        if end - m.start() > len("www.") + 2:
            hits.append(Hit(m.start(), end, "url", 1.0))
    return hits


def _unbalanced(text: str, start: int, end: int, closing: str) -> bool:
    opening = "(" if closing == ")" else "["
    return text.count(opening, start, end) < text.count(closing, start, end)


def _url_end(text: str, start: int, end: int) -> int:
    """Drop trailing punctuation, and a closing bracket the URL did not open."""
    while end > start:
        last = text[end - 1]
        if last in _URL_TRAILING or (last in ")]" and _unbalanced(text, start, end, last)):
            end -= 1
        else:
            break
    return end


def find_domains(text: str) -> list[Hit]:
    """Bare domains such as "jean-dupont.fr" (score 0.6); notoriety is policy's call.
    Found from each ".tld" (prose rarely has one) by reading the labels backwards."""
    hits: list[Hit] = []
    for tld in _TLD_HIT.finditer(text):
        start = _host_start(text, tld.start())
        if start is None:
            continue
        labels = text[start : tld.start()].lower().split(".")
        if labels[0] in _NOT_HOSTS or all(label.isdigit() for label in labels):
            continue
        path = _PATH.match(text, tld.end())
        end = _url_end(text, start, path.end()) if path else tld.end()
        hits.append(Hit(start, end, "domain", 0.6))
    return hits


def _host_start(text: str, dot: int) -> int | None:
    """Start of the labels ending at `dot` (the dot before the TLD), or None when they are not
    a host: a bad label, or glued to a word, an "@", a path or a longer dotted run."""
    start, count = dot, 0
    while count < _MAX_LABELS:
        label_start = start
        while label_start > 0 and text[label_start - 1] in _LABEL_CHARS and start - label_start <= 63:
            label_start -= 1
        if label_start == start or not _LABEL.fullmatch(text, label_start, start):
            return None
        start, count = label_start, count + 1
        if not (start > 1 and text[start - 1] == "." and text[start - 2] in _LABEL_CHARS):
            break
        start -= 1
    if start > 0 and (is_word_char(text[start - 1]) or text[start - 1] in "@./:-"):
        return None
    return start


# --- IP and MAC addresses -------------------------------------------------------------------

_IPV4 = deferred(r"\d(?<![\w.]\d)\d{0,2}\.(?:\d{1,3}\.){2}\d{1,3}(?!\w|\.\d)")
_IPV6_CANDIDATE = deferred(
    r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f]{0,4})(?![\w:]|\.\d)"
)
_MAC = deferred(
    r"(?<![\w:.-])(?:[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:\1[0-9A-Fa-f]{2}){4}"
    r"|[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4})(?![\w:-]|\.[0-9A-Fa-f])"
)


# Anchors starting with a separator: the costly patterns then run only in windows around them.
_MAC_ANCHOR = deferred(r"[:-][0-9A-Fa-f]{2}[:-]|\.[0-9A-Fa-f]{4}\.")
_IPV6_ANCHOR = deferred(r":[0-9A-Fa-f]{0,4}:")


def find_ipv4(text: str) -> list[Hit]:
    """Dotted quads with every octet <= 255 and no leading zero ("06.37.68.08" is a phone
    fragment, and no parser accepts it as an address); 3-part versions and 5-part runs never match."""
    hits: list[Hit] = []
    for m in near_long_numbers(text, _IPV4, 4, 4):
        octets = m.group(0).split(".")
        if all(int(octet) <= 255 and (octet == "0" or not octet.startswith("0")) for octet in octets):
            hits.append(Hit(m.start(), m.end(), "ipv4", 1.0))
    return hits


def find_ipv6(text: str) -> list[Hit]:
    """Full and compressed IPv6 addresses the standard library parses, with at least one digit."""
    if "::" not in text and text.count(":") < 7:
        return []
    anchors = [(m.start(), m.end()) for m in _IPV6_ANCHOR.finditer(text)]
    hits: list[Hit] = []
    for m in windowed_matches(text, _IPV6_CANDIDATE, anchors, 45, 50):
        value = m.group(0)
        if value.count(":") < 2 or not any(ch.isdigit() for ch in value):
            continue
        try:
            ipaddress.IPv6Address(value)
        except ValueError:
            continue
        hits.append(Hit(m.start(), m.end(), "ipv6", 1.0))
    return hits


def find_macs(text: str) -> list[Hit]:
    """MAC addresses in colon, dash and Cisco dotted forms."""
    anchors = [(m.start(), m.end()) for m in _MAC_ANCHOR.finditer(text)]
    return [Hit(m.start(), m.end(), "mac", 0.95) for m in windowed_matches(text, _MAC, anchors, 20, 20)]


# --- URLs on a person's or a company's own domain, and profile links --------------------------

# Platforms whose profile links name a person: the path that does, after the host.
_PROFILE_PATH = deferred(r"/(?:in|pub)/[\w%.-]{2,100}/?|/@?[\w%.-]{2,60}/?")
_PROFILE_HOSTS = {
    "linkedin.com": "in", "github.com": "one", "gitlab.com": "one", "bitbucket.org": "one",
    "twitter.com": "one", "x.com": "one", "instagram.com": "one", "facebook.com": "one",
    "tiktok.com": "at", "medium.com": "at", "youtube.com": "at", "threads.net": "at", "mastodon.social": "at",
    "behance.net": "one", "dribbble.com": "one", "codepen.io": "one", "about.me": "one", "linktr.ee": "one",
    "calendly.com": "one",
}
# First path segments of these platforms that are pages of theirs, not people.
_PLATFORM_PAGES = frozenset({
    "about", "apps", "blog", "c", "channel", "codespaces", "collections", "company", "contact", "customer-stories",
    "discover", "docs", "enterprise", "events", "explore", "features", "feed", "gaming", "groups", "hashtag",
    "help", "home", "i", "intent", "issues", "jobs", "join", "learning", "legal", "login", "marketplace",
    "messaging", "mynetwork", "new", "notifications", "organizations", "orgs", "p", "pages", "playlist", "pricing",
    "privacy", "pulls", "readme", "reel", "reels", "results", "school", "search", "security", "settings", "share",
    "shorts", "signup", "site", "sponsors", "status", "stories", "tag", "tags", "team", "terms", "topics", "tos",
    "trending", "user", "watch",
})


def _host_and_path(value: str) -> tuple[str, str]:
    rest = value.split("//", 1)[-1]
    host, slash, path = rest.partition("/")
    host = host.rpartition("@")[2].split(":", 1)[0].lower().rstrip(".")
    return host.removeprefix("www."), slash + path.split("?", 1)[0].split("#", 1)[0]


def _is_profile(value: str) -> bool:
    """"linkedin.com/in/marie-dupont", "github.com/jdoe42", "medium.com/@jdoe": one person's page."""
    host, path = _host_and_path(value)
    style = _PROFILE_HOSTS.get(host)
    if style is None or not path.strip("/"):
        return False
    segments = [seg for seg in path.split("/") if seg]
    if _PROFILE_PATH.fullmatch(path) is None and not (style == "one" and _PROFILE_PATH.fullmatch(f"/{segments[0]}")):
        return False
    if style == "in":
        return segments[0] in ("in", "pub") and len(segments) == 2
    handle = segments[0]
    if style == "at" and not handle.startswith("@"):
        return False
    if handle.lstrip("@").lower() in _PLATFORM_PAGES:
        return False
    # A page under the handle ("github.com/jdupont42/dotfiles", "calendly.com/tom-harris/30min") when the handle
    # spells a person's name: an organisation's ("github.com/python/cpython") stays.
    return len(segments) == 1 or _handle_names_a_person(handle.lstrip("@"))


_HANDLE_PARTS = deferred(r"[-_.\d]+")


def _handle_names_a_person(handle: str) -> bool:
    """"tom-harris", "jdupont42", "marie.dupont": a first name and a surname, a name glued to another, or an
    initial glued to a rare surname."""
    parts = [part for part in _HANDLE_PARTS.split(handle.lower()) if part]
    if any(_first_name_and_surname(part, following) for part, following in itertools.pairwise(parts)):
        return True
    return any(_glued_name(part) or _rare_surname(part) or _initial_and_surname(part) for part in parts)


def _initial_and_surname(word: str) -> bool:
    """"jdupont", "msmith": an initial glued to a surname that is no everyday word."""
    from .. import lexicon

    rest = word[1:]
    return len(rest) >= 5 and rest.isalpha() and lexicon.is_surname(rest) and not lexicon.is_common_word(rest)


def _registrable(host: str) -> str:
    labels = host.lower().strip(".").split(".")
    if len(labels) >= 3 and labels[-2] in ("co", "com", "org", "net", "gouv", "gov", "ac", "asso"):
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def find_personal_web(text: str, web: list[Hit]) -> list[Hit]:
    """Among URL and domain hits: profile links naming a person ("profile", score 1.0), and
    addresses on the domain of an e-mail address of the same text ("site", score 1.0: masked with
    the e-mail, whose faked domain the site would otherwise give away)."""
    if not web:
        return []
    from ..fakes.web import plain_email
    from .contact import find_emails  # only texts with a URL or domain pay for a second e-mail scan

    mail_domains = set()
    for hit in find_emails(text) if ("@" in text or "%40" in text or " at " in text or "[" in text
                                     or "(" in text) else []:
        value = text[hit.start : hit.end]
        domain = (plain_email(value) or value).rpartition("@")[2]
        if "." in domain:
            mail_domains.add(_registrable(domain))
    hits: list[Hit] = []
    for hit in web:
        value = text[hit.start : hit.end]
        if _is_profile(value):
            hits.append(Hit(hit.start, hit.end, "profile", 1.0))
        elif mail_domains and _registrable(_host_and_path(value)[0]) in mail_domains - _MAILBOX_DOMAINS:
            hits.append(Hit(hit.start, hit.end, "site", 1.0))
        elif _OWN_SITE_BEFORE.search(lowered(text)[max(0, hit.start - 48) : hit.start]) or _host_names_a_person(
                _host_and_path(value)[0]):
            hits.append(Hit(hit.start, hit.end, "site", 0.9))
    return hits


# The writer's own site, said before its address: "mon portfolio :", "my site", "meiner Seite", "il nostro sito".
_OWN_SITE_BEFORE = deferred(
    r"(?<![\w])(?:my|our|mon|ma|notre|mein|meine|meiner|meinem|unsere|unserer|unseren|mi|nuestra|nuestro|"
    r"il mio|la mia|il nostro|la nostra|nostro|nostra)"
    r"(?: [^\W\d_]+){0,2} (?:site|website|web|webseite|homepage|seite|page|página|pagina|portfolio|portafolio|"
    r"blog|shop|boutique|tienda|negozio|sito|cv|resume|landing page)\b[^\n]{0,40}$"
)


def _host_names_a_person(host: str) -> bool:
    """A host made of a person's name ("julia-hoffmann-fotografie.de", "www.danielagarcia.design",
    "www.clasesguitarra-pabloarias.com") or holding a surname beside another word ("crm.autohaus-kessler.de",
    "api.dolibarr-lemoine.fr"), in any label before the domain's suffix; not a famous brand's
    ("harley-davidson.com")."""
    from .. import lexicon  # the name lists load only for texts holding an address

    labels = _registrable(host).split(".")[:1] + host.lower().split(".")[: -len(_registrable(host).split("."))]
    for label in labels:
        parts = [part for part in label.split("-") if part]
        if lexicon.is_notorious(" ".join(parts), "company", commercial=True, people=True):
            continue
        if any(_first_name_and_surname(part, following) for part, following in itertools.pairwise(parts)):
            return True
        if any(_glued_name(part) or (len(parts) > 1 and _rare_surname(part)) or _glued_business(part)
               for part in parts):
            return True
    return False


def _glued_business(word: str) -> bool:
    """A trade word glued to a name ("trattoriadamimmo", "academiaidiomaslaurasanz", "boulangeriepaul"): a small
    business's own domain; a trade word with an everyday word after it ("restaurantguru") is not."""
    from .. import lexicon

    if not word.isalpha():
        return False
    for cut in range(6, len(word) - 3):
        if lexicon.is_trade_word(word[:cut]):
            rest = word[cut:]
            return any(_name_word(rest[i:j]) for i in range(len(rest)) for j in range(i + 4, len(rest) + 1))
    return False


def _name_word(word: str) -> bool:
    from .. import lexicon

    return (lexicon.is_first_name(word) or lexicon.is_surname(word)) and not lexicon.is_frequent_word(word)


def _first_name_and_surname(first: str, second: str) -> bool:
    from .. import lexicon

    return len(first) > 2 and lexicon.is_first_name(first) and lexicon.is_surname(second)


def _rare_surname(word: str) -> bool:
    """A surname of five letters or more that is no everyday word of any of our languages ("kessler",
    "lemoine"; not "baker", "king", "garden")."""
    from .. import lexicon

    return (len(word) >= 5 and word.isalpha() and lexicon.is_surname(word) and not lexicon.is_first_name(word)
            and not (lexicon.is_frequent_word(word) or lexicon.is_common_word(word) or lexicon.is_everyday_form(word)))


def _glued_name(word: str) -> bool:
    """"danielagarcia" (a first name glued to a surname, both of four letters or more, not both among the
    commonest words: "pabloarias" is left, "pablo" and "arias" both are)."""
    if not word.isalpha() or len(word) < 8:
        return False
    from .. import lexicon

    return any(lexicon.is_first_name(word[:cut]) and lexicon.is_surname(word[cut:])
               and not (lexicon.is_frequent_word(word[:cut]) and lexicon.is_frequent_word(word[cut:]))
               for cut in range(4, len(word) - 3))


# A mailbox provider's domain says nothing about its users' own sites.
_MAILBOX_DOMAINS = frozenset({
    "gmail.com", "googlemail.com", "outlook.com", "outlook.fr", "hotmail.com", "hotmail.fr", "live.com", "live.fr",
    "yahoo.com", "yahoo.fr", "icloud.com", "me.com", "orange.fr", "wanadoo.fr", "free.fr", "sfr.fr", "laposte.net",
    "gmx.de", "gmx.net", "web.de", "t-online.de", "libero.it", "virgilio.it", "aol.com", "proton.me",
    "protonmail.com",
})


def find_network(text: str) -> list[Hit]:
    web = find_urls(text) + find_domains(text)
    return web + find_personal_web(text, web) + find_ipv4(text) + find_ipv6(text) + find_macs(text)
