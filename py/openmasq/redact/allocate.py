"""Choose the substitute of each masked value and record it in the vault.

Fake mode gives believable fakes, token mode opaque markers. Invariants (reference 9.7): one
real value keeps one substitute for the whole conversation, one person keeps one identity
across spellings (full name, first name or surname alone, capitals), no substitute stands for
two real values, and a fake never equals a real value or a word of the text."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, field

from ..patterns import deferred
from . import fakes, lexicon
from .fakes.names import DEFAULT_LANGUAGE, language_of
from .fakes.ordinary import is_ordinary_word, ordinary_in
from .kinds import category_of
from .prf import seeded_rng
from .spans import Span
from .text import fold, strip_accents
from .vault import Vault

MAX_ATTEMPTS = 60  # reference 9.7: then an opaque, still reversible fallback
_POSSESSIVE = deferred(r"(['’]s?)$")
_SPACE_RUNS = deferred(r"(\s+)")  # split keeping the runs: every person name is cut in words
# Fakes are allocated in this order so e-mails can be built from the fake person or company.
_KIND_ORDER = {"person": 0, "org": 1, "email": 2, "url": 3, "domain": 3, "site": 3, "profile": 3}
# Kinds whose value holds a host: one real registrable domain keeps one fake across them all.
WEB_KINDS = frozenset({"email", "url", "domain", "site", "profile"})

TOKEN_WORDS = {
    "name": "PERSON", "dob": "DOB", "date": "DATE", "email": "EMAIL", "phone": "PHONE", "address": "ADDRESS",
    "location": "LOCATION", "company": "COMPANY", "card": "CARD", "iban": "IBAN", "national_id": "ID",
    "company_id": "COMPANY_ID", "ip": "IP", "number": "NUM", "path": "PATH", "username": "USERNAME",
    "url": "URL", "apikey": "APIKEY", "secret": "SECRET",
}
# Kinds whose marker names them rather than their category (a project is switched with companies).
KIND_TOKEN_WORDS = {"project": "PROJECT", "site": "URL", "profile": "URL"}
CASED_CATEGORIES = frozenset({"name", "company", "location", "address", "username"})
_NUMERIC_PART = deferred(r"\d(?:[\d\s.,'\u00a0\u202f]*\d)?")

# Candidates computed ahead, elsewhere (the proxy's helper process, while this pass allocates
# the names): for a (purpose, value), the first attempts' candidates in order, None where the
# generator refused the value. A candidate is what that attempt computes here (same seed, same
# generator); accepting or rejecting it stays here, in order, so the outcome is unchanged.
Prefetched = Mapping[tuple[str, str], Sequence[str | None]]
# Starts computing candidates for (kind, value) pairs under a vault key; the function it returns
# waits for them (None: not to be had, this pass computes them itself).
Prefetch = Callable[[str, list[tuple[str, str]]], Callable[[], Prefetched | None]]
PREFETCH_ATTEMPTS = 1  # nearly every first candidate is accepted
# Kinds whose substitute is not one plain generator call on the value (names keep per-word state,
# e-mails and URLs take hints from them, numbers become counters): never computed ahead. The
# others come last in a pass, after the names: there is time to compute theirs elsewhere.
_NOT_PREFETCHED = frozenset({"person", "org", "number", "amount"}) | WEB_KINDS


@dataclass
class Context:
    """What allocation must avoid: the words of the text and every real value seen so far."""

    text_lower: str
    text_folds: str
    text_words: frozenset[str]
    vault: Vault
    real_folds: set[str]
    fake_word_folds: set[str]  # folded canonical fakes already given to a real name word
    lang: str | None  # the text's language when the caller knows it: the locale of fakes for unknown names
    # The folded text between spaces, built once: every candidate fake is looked up in it as a whole word.
    spaced_folds: str
    prefetched: Prefetched = field(default_factory=dict)
    # Real registrable domain -> its fake in this conversation (see _domain_fakes); built on first use.
    domains: dict[str, str] | None = None

    @staticmethod
    def of(text: str, vault: Vault, lang: str | None = None) -> Context:
        folded = fold(text)
        fake_words = {fold(fake) for fake in vault.words.values()}
        return Context(text.casefold(), folded, frozenset(folded.split()), vault, vault.real_folds(), fake_words, lang,
                       f" {folded} ")

    def rejects(self, fake: str, real: str) -> bool:
        """A candidate fake is refused when it is the value, stands for another value, is
        itself a real value, or appears in the text."""
        if not fake or fake == real:
            return True
        owner = self.vault.entries.get(fake)
        if owner is not None and owner != real:
            return True
        folded = fold(fake)
        if folded == fold(real) or folded in self.real_folds:
            return True
        return len(folded) >= 3 and f" {folded} " in self.spaced_folds


def allocate(spans: list[Span], text: str, vault: Vault, *, lang: str | None = None,
             prefetch: Prefetch | None = None) -> dict[Span, str]:
    """The substitute of every span, recording new ones in `vault` (which the caller owns).
    `lang` ("fr", "en"...; None for auto) is the locale of fake names whose real locale is unknown.
    `prefetch`: computes, meanwhile, the candidates of the kinds allocated last (see Prefetch)."""
    context = Context.of(text, vault, lang)
    reverse = vault.reverse()
    ordered = sorted(spans, key=lambda s: (_KIND_ORDER.get(s.kind, 9), s.start))
    wanted = list(dict.fromkeys((s.kind, s.value) for s in ordered
                                if s.kind not in _NOT_PREFETCHED and s.value not in reverse))
    pending = prefetch(vault.key, wanted) if prefetch is not None and wanted and vault.mode != "token" else None
    out: dict[Span, str] = {}
    try:
        for span in ordered:
            if pending is not None and span.kind not in _NOT_PREFETCHED:
                context.prefetched, pending = pending() or {}, None
            known = reverse.get(span.value)
            if known is None:
                known = new_substitute(span, context)
                vault.record(known, span.value, span.kind)
                reverse[span.value] = known
                context.real_folds.add(fold(span.value))
                if span.kind in WEB_KINDS and vault.mode != "token":
                    _remember_web_fake(span, known, context)
            out[span] = known
    finally:  # collected whatever happens, so whoever computes them is free for the next pass
        if pending is not None:
            pending()
    return out


def new_substitute(span: Span, context: Context) -> str:
    """A substitute for a value the vault does not hold yet: a fake, or a marker in token mode (not
    recorded: the caller records it)."""
    return _token_substitute(span, context) if context.vault.mode == "token" else _fake_substitute(span, context)


def prefetch_candidates(key: str, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], list[str | None]]:
    """What `_first_acceptable` computes first for each (kind, value) under `key`: the work a
    Prefetch does elsewhere."""
    out: dict[tuple[str, str], list[str | None]] = {}
    for kind, value in wanted:
        purpose = "fake:" + kind
        candidates: list[str | None] = []
        hints = _keyed_hints(key, kind, value)
        for attempt in range(PREFETCH_ATTEMPTS):
            candidate = _candidate(key, purpose, value, attempt, _generator(kind, value, hints))
            candidates.append(candidate)
            if candidate is None:
                break
        out[(purpose, value)] = candidates
    return out


# --- fake mode ------------------------------------------------------------------------------

def _fake_substitute(span: Span, context: Context) -> str:
    if span.kind == "person":
        return _person_fake(span.value, context)
    if span.kind == "org":
        return _org_fake(span.value, context)
    if span.kind in ("number", "amount"):
        return _number_token(span.value, context)
    make = _generator(span.kind, span.value, _hints_for(span, context))
    return _first_acceptable(span.value, context, "fake:" + span.kind, make) or _fallback_marker(span, context)


def _generator(kind: str, value: str, hints: dict[str, str]) -> Callable[[random.Random], str]:
    """The fake generator of one value, its hints bound: what each attempt calls with its seed."""
    return lambda rng: fakes.fake_for(kind, value, rng, **hints)


def _first_acceptable(real: str, context: Context, purpose: str, make: Callable[..., str]) -> str | None:
    """The first acceptable fake over the attempts; a generator that cannot shape this value
    (an odd format it does not parse) yields no fake, and the caller falls back to a marker."""
    ahead = context.prefetched.get((purpose, real), ())
    for attempt in range(MAX_ATTEMPTS):
        if attempt < len(ahead):
            candidate = ahead[attempt]
        else:
            candidate = _candidate(context.vault.key, purpose, real, attempt, make)
        if candidate is None:
            return None
        if not context.rejects(candidate, real):
            return candidate
    return None


def _candidate(key: str, purpose: str, real: str, attempt: int, make: Callable[..., str]) -> str | None:
    """One attempt's candidate (None: the generator cannot shape this value)."""
    try:
        return make(seeded_rng(key, purpose, fold(real), attempt))
    except (ValueError, LookupError, ArithmeticError):
        return None


def _person_fake(value: str, context: Context) -> str:
    """Word by word, each real name word keeping one canonical fake for the conversation, so
    "Marie Dupont", "Dupont" and "DUPONT" stay one identity."""
    tokens = _SPACE_RUNS.split(value)
    name_positions = [i for i, tok in enumerate(tokens) if _is_name_word(tok)]
    pieces = list(tokens)
    words = [_split_possessive(tokens[i])[0] for i in name_positions]
    for order, i in enumerate(name_positions):
        word, suffix = _split_possessive(tokens[i])
        role = _role_of(word, order, words)
        fake = _word_fake(word, role, context)
        pieces[i] = fakes.match_case(word, fake) + suffix
    result = "".join(pieces)
    if context.rejects(result, value):
        return _fallback_marker(Span(0, len(value), value, "person", "lexicon"), context)
    _record_word_aliases(tokens, pieces, name_positions, context.vault)
    return result


_PARTICLE_KEYS = frozenset(p.casefold() for p in lexicon.NAME_PARTICLES)
_HONORIFIC_KEYS = frozenset(h.casefold().rstrip(".") for h in lexicon.HONORIFICS)


def _is_name_word(token: str) -> bool:
    word = token.strip()
    if not word or word.isspace():
        return False
    bare = word.rstrip(".")
    lowered = bare.casefold()
    if lowered in _PARTICLE_KEYS:
        return False
    return lowered not in _HONORIFIC_KEYS


def _split_possessive(word: str) -> tuple[str, str]:
    match = _POSSESSIVE.search(word)
    if match and len(word) > len(match.group(1)) + 1:
        return word[: match.start()], match.group(1)
    return word, ""


def _role_of(word: str, order: int, words: list[str]) -> str:
    """First name or surname: an ALL-CAPS word is a surname ("DUPONT Marie"); a word the lexicon
    knows as a first name is one when it leads the name or follows capitalised surnames; a lone
    word is a surname unless it is only known as a first name."""
    if word.isupper() and len(word) > 1:
        return "last"
    if len(words) > 1:
        others_are_caps = all(w.isupper() for j, w in enumerate(words) if j != order)
        leads = order == 0 or others_are_caps
        return "first" if leads and lexicon.is_first_name(word) else "last"
    if lexicon.is_first_name(word) and not lexicon.is_surname(word):
        return "first"
    return "last"


def _word_fake(word: str, role: str, context: Context) -> str:
    vault = context.vault
    key = fold(word)
    known = vault.words.get(key)
    if known is not None:
        return known
    taken = context.fake_word_folds
    real_words = vault.words
    title = word[:1].upper() + word[1:].lower() if word.isupper() else word
    locale = lexicon.locale_of_name(title) or context.lang
    # Not an ordinary word of the conversation's language or the fake's: a reply's "Victoire" in a
    # title would come back as the real first name.
    languages = ordinary_in((language_of(locale), context.lang or DEFAULT_LANGUAGE))
    for attempt in range(MAX_ATTEMPTS):
        rng = seeded_rng(vault.key, "word:" + role, key, attempt)
        if role == "first":
            fake = fakes.fake_first_name(title, rng, locale=locale)
        else:
            fake = fakes.fake_surname(title, rng, locale=locale)
        folded = fold(fake)
        if folded == key or folded in taken or folded in real_words or folded in context.real_folds:
            continue
        if is_ordinary_word(fake, languages):
            continue
        if folded in context.text_words or any(part in context.text_words for part in folded.split()):
            continue
        vault.words[key] = fake
        taken.add(folded)
        return fake
    fallback = f"X{len(vault.words) + 1}"
    vault.words[key] = fallback
    return fallback


def _record_word_aliases(tokens: list[str], pieces: list[str], positions: list[int], vault: Vault) -> None:
    """Per-word entries (fake word -> real word) so "Mme Lefèvre" in a reply restores."""
    if len(positions) < 2:
        return
    for i in positions:
        real, _ = _split_possessive(tokens[i])
        fake, _ = _split_possessive(pieces[i])
        if len(real) >= 2 and fake not in vault.entries and not lexicon.is_stopword(real):
            vault.record(fake, real, "person", alias=True)


def _org_fake(value: str, context: Context) -> str:
    """One fake per organisation core: "Karl Studio SAS" and "Karl Studio" share "Verlac Studio"."""
    vault = context.vault
    core = lexicon.strip_org_affixes(value) or value
    key = fold(core)
    fake_core = vault.org_cores.get(key)
    if fake_core is None:
        made = _first_acceptable(core, context, "org", lambda rng: fakes.fake_org(core, rng))
        if made is None:
            return _fallback_marker(Span(0, len(value), value, "org", "rule"), context)
        fake_core = made
        vault.org_cores[key] = fake_core
    cased = fakes.match_case(core, fake_core)
    result = value.replace(core, cased, 1) if core in value else cased
    if core != value and cased not in vault.entries:
        vault.record(cased, core, "org", alias=True)
    if context.rejects(result, value):
        return _fallback_marker(Span(0, len(value), value, "org", "rule"), context)
    return result


def _keyed_hints(key: str, kind: str, value: str) -> dict[str, str]:
    """Hints that depend on the vault's key and the value alone (so a Prefetch computes them
    too): an IPv4 address gets the fake /24 of its /24, drawn once per network, so that hosts
    of one network stay in one fake network."""
    subnet = fakes.subnet_of(value) if kind == "ipv4" else None
    if subnet is None:
        return {}
    return {"subnet": fakes.fake_subnet(value, seeded_rng(key, "subnet:ipv4", subnet, 0))}


def _hints_for(span: Span, context: Context) -> dict[str, str]:
    """E-mail and URL fakes are built from the fake person and company when they are known, on
    the fake domain the conversation already gave their real domain; see _keyed_hints for the
    others."""
    if span.kind not in WEB_KINDS:
        return _keyed_hints(context.vault.key, span.kind, span.value)
    hints: dict[str, str] = {}
    value = (fakes.plain_email(span.value) or span.value) if span.kind == "email" else span.value
    local, _, domain = value.rpartition("@") if span.kind == "email" else ("", "", value)
    known_domain = _domain_fakes(context).get(_registrable_of(span.kind, value))
    if known_domain:
        hints["domain_fake"] = known_domain
    if local:
        local_hint = _local_part_hint(local, context)
        if local_hint:
            hints["local_hint"] = local_hint
    label = _domain_label(domain)
    fake_core = context.vault.org_cores.get(fold(label)) if label else None
    if fake_core:
        hints["domain_hint"] = _slug(fake_core)
    return hints


def _registrable_of(kind: str, value: str) -> str:
    """The registrable domain a web value sits on ("" when none or a mailbox provider's)."""
    if kind == "email":
        host = value.rpartition("@")[2]
    else:
        host = value.split("//", 1)[-1].split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
        host = host.rpartition("@")[2].split(":", 1)[0]
    domain = fakes.registrable(host)
    return "" if not domain or fakes.is_webmail(domain) else domain


def _domain_fakes(context: Context) -> dict[str, str]:
    """Real registrable domain -> fake, read once per pass from the vault's web values, so that
    "marie@plomberie-dufour.fr" and "www.plomberie-dufour.fr/contact" keep one fake domain."""
    if context.domains is None:
        context.domains = {}
        vault = context.vault
        for sub, real in vault.entries.items():
            kind = vault.kinds.get(sub, "")
            if kind in WEB_KINDS and sub not in vault.aliases:
                _pair_domains(kind, real, sub, context.domains)
    return context.domains


def _pair_domains(kind: str, real: str, fake: str, domains: dict[str, str]) -> None:
    if kind == "email":
        real, fake = fakes.plain_email(real) or real, fakes.plain_email(fake) or fake
    real_domain, fake_domain = _registrable_of(kind, real), _registrable_of(kind, fake)
    if real_domain and fake_domain and real_domain != fake_domain:
        domains.setdefault(real_domain, fake_domain)


def _remember_web_fake(span: Span, fake: str, context: Context) -> None:
    """Record the domain pair of a new web fake; an obfuscated address also restores and
    substitutes in its plain form (a reply may well write it plainly)."""
    _pair_domains(span.kind, span.value, fake, _domain_fakes(context))
    if span.kind != "email":
        return
    plain_real, plain_fake = fakes.plain_email(span.value), fakes.plain_email(fake)
    if plain_real and plain_fake and plain_fake not in context.vault.entries and plain_fake != plain_real:
        context.vault.record(plain_fake, plain_real, "email", alias=True)


def _local_part_hint(local: str, context: Context) -> str | None:
    """"marie.dupont" -> "claire.lefevre" when the person is known or looks like a name."""
    pieces = re.split(r"([._\-])", local)
    words = pieces[0::2]
    if not words or not all(w.isalpha() and len(w) >= 2 for w in words):
        return None
    known = context.vault.words
    if not all(fold(w) in known for w in words):
        if not (len(words) >= 2 and lexicon.is_first_name(words[0])):
            return None
        for order, word in enumerate(words):
            _word_fake(word.capitalize(), "first" if order == 0 else "last", context)
    fake_words = [_slug(known[fold(w)]) for w in words]
    out = [fake_words[j // 2] if j % 2 == 0 else pieces[j] for j in range(len(pieces))]
    return "".join(out)


def _domain_label(domain: str) -> str:
    host = domain.split("//")[-1].split("/")[0].lower()
    host = host[4:] if host.startswith("www.") else host
    parts = host.split(".")
    return parts[-2] if len(parts) >= 2 else ""


def _slug(value: str) -> str:
    ascii_value = strip_accents(value).lower()
    return re.sub(r"[^a-z0-9]+", "-", ascii_value).strip("-")


# --- numbers and token mode -------------------------------------------------------------------

def _number_token(value: str, context: Context) -> str:
    """Amounts keep their currency; the number itself becomes `nN` (reference 9.5 step 12)."""
    vault = context.vault
    count = vault.counters.get("n", 0) + 1
    while f"n{count}" in vault.entries or re.search(rf"\bn{count}\b", context.text_lower):
        count += 1
    vault.counters["n"] = count
    token = f"n{count}"
    match = _NUMERIC_PART.search(value)
    if match is None or match.group() == value:
        return token
    if token not in vault.entries:
        vault.record(token, match.group(), "number", alias=True)
    return value[: match.start()] + token + value[match.end() :]


def _fallback_marker(span: Span, context: Context) -> str:
    """Opaque but reversible: used when no acceptable fake was found."""
    word = KIND_TOKEN_WORDS.get(span.kind) or TOKEN_WORDS.get(category_of(span.kind), "INFO")
    return _next_marker(word, span.value, context, cased=False)


def _token_substitute(span: Span, context: Context) -> str:
    vault = context.vault
    category = category_of(span.kind)
    if category == "number":
        return _number_token(span.value, context)
    word = KIND_TOKEN_WORDS.get(span.kind) or TOKEN_WORDS.get(category, "INFO")
    if category == "name":
        linked = _linked_person_number(span.value, vault)
        if linked is not None:
            return _suffixed_marker(word, linked, span.value, context)
    marker = _next_marker(word, span.value, context, cased=category in CASED_CATEGORIES)
    if category == "name":
        number = re.sub(r"\D", "", marker)
        for part in span.value.split():
            if len(part) >= 4 and part.isalpha():
                vault.words.setdefault(fold(part), number)
    return marker


def _cased_word(word: str, value: str) -> str:
    """[PERSON1] for "Marie", [person1] for "marie", [Person1] for "MARIE" (distinct keys)."""
    letters = [ch for ch in value if ch.isalpha()]
    if letters and all(ch.islower() for ch in letters):
        return word.lower()
    if letters and all(ch.isupper() for ch in letters) and len(letters) > 1:
        return word.capitalize()
    return word


def _next_marker(word: str, value: str, context: Context, *, cased: bool) -> str:
    """The next free marker: not in the vault, and not literally present in the text."""
    vault = context.vault
    count = vault.counters.get(word, 0)
    shown = _cased_word(word, value) if cased else word
    while True:
        count += 1
        marker = f"[{shown}{count}]"
        if marker not in vault.entries and marker.casefold() not in context.text_lower:
            vault.counters[word] = count
            return marker


def _linked_person_number(value: str, vault: Vault) -> str | None:
    """A partial spelling of a known person ("L. Morvan" after "Léa Morvan") shares its number."""
    for part in value.split():
        if len(part) >= 4 and part.isalpha() and fold(part) in vault.words:
            number = vault.words[fold(part)]
            if number.isdigit():
                return number
    return None


def _suffixed_marker(word: str, number: str, value: str, context: Context) -> str:
    return suffixed_marker(word, number, value, context.vault.entries, context.text_lower) or _next_marker(
        word, value, context, cased=True)


def suffixed_marker(word: str, number: str, value: str, taken: Container[str], text_lower: str) -> str | None:
    """Another spelling of marker `number` ("[PERSON1b]" for "Morvan" after "[PERSON1]" = "Léa Morvan"): the
    model still reads one person, and the restore gives back what was written. None when all are taken."""
    shown = _cased_word(word, value)
    for letter in "bcdefghijklmnopqrstuvwxyz":
        marker = f"[{shown}{number}{letter}]"
        if marker not in taken and marker.casefold() not in text_lower:
            return marker
    return None
