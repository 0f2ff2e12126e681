"""Put the real values back into a model's reply, for display or for tool arguments.

One left-to-right pass over all substitutes, longest first, so restored text is never
re-scanned. A substitute matches in any case, with or without accents, with separators
changed, wrapped across lines, with a possessive, URL-encoded, with HTML character references
("H&#233;l&#232;ne", "&Eacute;lise", "&amp;"), or (for tool arguments) JSON-escaped. Unknown
text that only looks like a fake is left alone."""

from __future__ import annotations

import bisect
import html
import json
import re
from collections.abc import Callable, Mapping
from typing import NamedTuple, Protocol

from ..patterns import deferred
from .fakes.phone import dialled_forms
from .fakes.web import is_webmail, registrable
from .kinds import category_of
from .text import FoldedText, fold, strip_accents
from .vault import Vault

_MARKER = deferred(r"^\[([A-Za-z_]+\d+[a-z]?)\]$")
_NUMBER_TOKEN = deferred(r"^n\d+$")
CASED_KINDS = frozenset({"person", "org", "location", "address", "username"})
_LOOKAHEAD = 2
# A text at least this many characters per key has its matches found by one str.find per key
# (see _matcher); a shorter one (a streamed piece) is scanned at word starts.
FIND_CHARS_PER_KEY = 3


class Substitutes(Protocol):
    """What a restorer reads of a vault: its substitutes, their real values and kinds (a Vault,
    or a copy of just these, which is all a helper process needs to build one)."""

    @property
    def entries(self) -> Mapping[str, str]: ...

    @property
    def kinds(self) -> Mapping[str, str]: ...


class _Key(NamedTuple):
    surface: str  # how the substitute may appear in the reply
    real: str  # what replaces it
    kind: str
    risky: bool  # only its exact spelling restores (number tokens, very short words)


class Restorer:
    """Matcher for one vault state (build once per reply). Keys are looked up on the folded
    reply (case, accents and separator runs folded, offsets mapped back), by one str.find per
    key in a long text, by slicing at word starts in a short one (see _matcher): no regex over
    the keys, so building and matching stay cheap whatever the vault's size."""

    def __init__(self, vault: Substitutes, *, args: bool = False) -> None:
        self.args = args
        self._exact: dict[str, _Key] = {}
        self._folded: dict[str, set[str]] = {}
        self._by_fold: dict[str, _Key] = {}
        for key in _keys_of(vault, args=args):
            self._exact.setdefault(_collapse(key.surface), key)
            folded = fold(key.surface)
            if folded:
                self._folded.setdefault(folded, set()).add(key.real)
                self._by_fold.setdefault(folded, key)
        self._keys = frozenset(self._by_fold)
        # Host names (a fake registrable domain): also matched after "@" or a subdomain's dot.
        self._hosts = frozenset(fold(key.surface) for key in self._by_fold.values() if _is_host(key.surface))
        # Candidate key lengths per first character, longest first: a match is looked up by
        # slicing the folded reply, never by a regex alternation over every key.
        lengths: dict[str, set[int]] = {}
        for folded_key in self._keys:
            lengths.setdefault(folded_key[0], set()).add(len(folded_key))
        self._lengths = {ch: sorted(ls, reverse=True) for ch, ls in lengths.items()}
        # For the scan (short texts, see _matcher): where a match may begin, a word start
        # (or a character that is no letter or digit) holding a key's first character or a
        # French elision: the regex engine skips the rest of the reply at C speed (a character
        # class: compiling it stays cheap whatever the vault's size). A candidate must then
        # begin with a key's first two characters. Compiled on first use: a whole reply's
        # restorer never scans, and one built by a proxy helper travels without it.
        self._first_class = "".join(re.escape(ch) for ch in sorted(lengths))
        self._candidates: re.Pattern[str] | None = None
        self._heads = frozenset(folded_key[:2] for folded_key in self._keys)  # a one-character key is its own head
        # The folded keys, sorted for the streaming hold-back test; a key may also follow an
        # elision, which that test reads off the suffix rather than storing each key four times.
        self._prefixes = sorted(self._keys)
        self._firsts = (set(lengths) | {elision[0] for elision in _ELISIONS}) if lengths else set()
        longest = max((len(k) for k in self._keys), default=0)
        self.max_len = (longest + max(len(elision) for elision in _ELISIONS)) if longest else 0
        # Numbers whose grouping the model may change (phones, IBANs, cards, identifiers): their
        # digits and letters alone, in every form one of them is dialled or written.
        self._compact = _compact_index(vault, args=args)
        self._compact_sorted = sorted(self._compact)

    @property
    def is_empty(self) -> bool:
        return not self._keys and not self._compact

    # --- whole text -------------------------------------------------------------------------

    def restore(self, text: str) -> str:
        out, _ = self.release(text, 0, final=True)
        return out

    def release(self, text: str, pos: int, *, final: bool) -> tuple[str, int]:
        """Restore text[pos:] and return it with the offset where it stopped: everything, when
        final; else up to the earliest point from which more text could still change a match."""
        if self.is_empty:
            return text[pos:], len(text)
        if not final:
            partial = _PARTIAL_REFERENCE.search(text, pos)
            if partial is not None:
                text = text[: partial.start()]  # "H&#23": the reference may still decode to a fake's letter
        view = _ReplyView(text)
        fpos = bisect.bisect_left(view.origin, pos)
        cut = len(text) if final else self._hold_point(view, fpos)
        numbers: list[tuple[int, int, str]] = []
        if self._compact and _ANY_DIGIT.search(text, pos):
            numbers, held = self._compact_matches(text, pos, final=final)
            cut = min(cut, held)
        pieces: list[str] = []
        cursor = pos
        next_match = self._matcher(view.folded, fpos) if self._keys else (lambda _at: None)
        while True:
            found = next_match(fpos)
            while numbers and numbers[0][0] < cursor:
                numbers.pop(0)
            if numbers and numbers[0][0] < cut and (found is None or numbers[0][0] <= view.origin[found[0]]):
                start, end, real = numbers.pop(0)
                pieces.append(text[cursor:start])
                pieces.append(real)
                cursor = end
                fpos = bisect.bisect_left(view.origin, end)
                continue
            if found is None:
                break
            fstart, fkey, fend = found
            start, key_start = view.origin[fstart], view.origin[fkey]
            end = view.end_of(fend - 1)
            if start >= cut:
                break
            # Not final: the boundary checks peek up to two characters past a match.
            if end > cut or (not final and fend + _LOOKAHEAD > len(view.folded)):
                cut = start
                break
            if view.in_compound(fkey, fend):
                fpos = fstart + 1  # "Lucy-Louis" is not the fake "Lucy" followed by a word
                continue
            pieces.append(text[cursor:start])
            written = text[key_start:end]
            shown = html.unescape(written)
            if shown != written:  # read through its character references; written back escaped
                pieces.append(html.escape(self._replacement(html.unescape(text[start:key_start]), shown)))
            else:
                end = self._exact_prefix_end(text, key_start, end)
                pieces.append(self._replacement(text[start:key_start], text[key_start:end]))
            cursor = end
            fpos = bisect.bisect_left(view.origin, end)
        pieces.append(text[cursor:cut])
        return "".join(pieces), cut

    def _matcher(self, folded: str, fpos: int) -> Callable[[int], tuple[int, int, int] | None]:
        """`_next_match` over `folded` from any offset at or after fpos. In a text of at least
        FIND_CHARS_PER_KEY characters per key, every match is listed at once by one str.find per
        key, at C speed (a 2 kB reply with a 35-entry vault restores in 0.39 ms instead of 0.62;
        the two ways cost about the same at 600 keys). The scan at word starts is cheaper on a
        streamed reply's short pieces (a 2 kB reply in 4-character pieces: 5.6 ms against 9.2
        with 70 keys, 7.8 against 40 with 490; measured with bench-like prompts)."""
        if len(self._keys) * FIND_CHARS_PER_KEY > len(folded) - fpos:
            return lambda at: self._next_match(folded, at)
        found = self._all_matches(folded, fpos)
        index = 0

        def next_at(at: int) -> tuple[int, int, int] | None:
            nonlocal index
            while index < len(found) and found[index][0] < at:
                index += 1
            return found[index] if index < len(found) else None

        return next_at

    def _all_matches(self, folded: str, fpos: int) -> list[tuple[int, int, int]]:
        """Every (match start, key start, end) from fpos that `_next_match` accepts when its scan
        reaches that start, in the order it prefers them: leftmost, an elision's match before
        the key alone, longest."""
        found: list[tuple[int, int, int]] = []
        for key in self._keys:
            length = len(key)
            q = folded.find(key, fpos)
            host = key in self._hosts
            while q != -1:
                end = q + length
                if _bounded_at(folded, q, end, host=host):
                    found.append((q, q, end))
                    p = _elision_before(folded, q)
                    if p is not None and p >= fpos:
                        found.append((p, q, end))
                q = folded.find(key, q + 1)
        found.sort(key=lambda m: (m[0], m[1] == m[0], -m[2]))
        return found

    def _next_match(self, folded: str, fpos: int) -> tuple[int, int, int] | None:
        """(match start, key start, end) in the folded text of the leftmost, longest key
        occurrence from fpos; a French elision ("d'", "qu'") before a key belongs to the match."""
        if not self._first_class:
            return None
        if self._candidates is None:
            self._candidates = re.compile(rf"(?:(?<![^\W_])|(?![^\W_]))(?=[{self._first_class}]|d['’]|qu['’])")
        search = self._candidates.search
        candidate = search(folded, fpos)
        heads = self._heads
        while candidate is not None:
            p = candidate.start()
            if folded[p : p + 2] not in heads and folded[p] not in heads and not folded.startswith(_ELISIONS, p):
                candidate = search(folded, p + 1)
                continue
            for elided in _elision_lengths(folded, p):
                end = self._longest_key_at(folded, p + elided)
                if end is not None:
                    return p, p + elided, end
            candidate = search(folded, p + 1)
        return None

    def _longest_key_at(self, folded: str, p: int) -> int | None:
        for length in self._lengths.get(folded[p : p + 1], ()):
            candidate = folded[p : p + length]
            if len(candidate) == length and candidate in self._keys and _bounded_at(
                    folded, p, p + length, host=candidate in self._hosts):
                return p + length
        return None

    def _exact_prefix_end(self, text: str, start: int, end: int) -> int:
        """Where to end a match: a tolerant match that is not itself a key ("Bégin Laura" in
        "Bégin Laura Bégin") yields to the longest exact key it starts with ("Bégin"), so
        adjacent names restore as they were written."""
        surface = text[start:end]
        if _collapse(surface) in self._exact:
            return end
        for i in range(len(surface) - 1, 0, -1):
            if surface[i].isspace() and not surface[i - 1].isspace() and _collapse(surface[:i]) in self._exact:
                return start + i
        return end

    def _replacement(self, elision: str, surface: str) -> str:
        real = self._resolve(surface)
        if real is None:
            return elision + surface
        if not elision:
            return real
        letters, apostrophe = elision[:-1], elision[-1]
        if _starts_with_vowel(real):
            return f"{letters}{apostrophe}{real}"
        # "d'Ostrel" restored to a consonant-initial name reads "de Karl Studio".
        return f"{letters}{'e' if letters[-1].islower() else 'E'} {real}"

    def _resolve(self, surface: str) -> str | None:
        exact = self._exact.get(_collapse(surface))
        if exact is not None:
            return exact.real
        folded = fold(surface)
        reals = self._folded.get(folded, set())
        key = self._by_fold.get(folded)
        if key is None or key.risky or len(reals) != 1:
            return None
        if " " not in folded and "." not in folded and not any(ch.isupper() for ch in surface):
            return None  # "eau claire" is not the fake "Claire" (same rule as the send side)
        return _mirror_case(surface, key)

    # --- numbers in any grouping ----------------------------------------------------------------

    def _compact_matches(self, text: str, pos: int, *, final: bool) -> tuple[list[tuple[int, int, str]], int]:
        """(start, end, real) of every number from `pos` whose digits and letters are a fake's,
        leftmost and longest first, and the offset from which a number still being written could
        become one (len(text) when none, or when final)."""
        out: list[tuple[int, int, str]] = []
        held = len(text)
        for chain in _chains(text, pos):
            i = 0 if sum(map(str.isdigit, text[chain[0][0] : chain[-1][1]])) >= MIN_COMPACT_DIGITS else len(chain)
            while i < len(chain):
                j = self._longest_window(text, chain, i)
                if j is None:
                    i += 1
                    continue
                start, end = chain[i][0], chain[j][1]
                if start > pos and text[start - 1] == "(" and ")" in text[start:end]:
                    start -= 1  # "(415) 555-0132": the parenthesis belongs to the number
                if text[start:end] not in self._exact:  # exactly as written: the key matcher has it
                    number = self._compact[_compacted(text, chain[i : j + 1])]
                    out.append((start, end, _relaid(text[start:end], number)))
                i = j + 1
            if not final and _reaches_end(text, chain[-1][1]):
                held = min(held, self._growing_from(text, chain, out))
        return out, held

    def _longest_window(self, text: str, chain: list[tuple[int, int]], i: int) -> int | None:
        """The last group of the longest window from group i whose compact form is a number's, read
        group by group while it still begins one."""
        found = None
        compact = ""
        for j in range(i, min(len(chain), i + _MAX_GROUPS)):
            if j > i and text[chain[j][0]] == "+":
                break
            compact += text[chain[j][0] : chain[j][1]].upper()
            if not self._begins_a_number(compact):
                break
            if compact in self._compact:
                found = j
        return found

    def _begins_a_number(self, prefix: str) -> bool:
        k = bisect.bisect_left(self._compact_sorted, prefix)
        return k < len(self._compact_sorted) and self._compact_sorted[k].startswith(prefix)

    def _growing_from(self, text: str, chain: list[tuple[int, int]], found: list[tuple[int, int, str]]) -> int:
        """Where the chain at the end of a streamed text must be held back: from its first group that
        starts a prefix of a number's form, or from a match it holds (more digits could lengthen it)."""
        start_of = {start for start, _, _ in found}
        for i in range(max(0, len(chain) - _MAX_GROUPS), len(chain)):
            if chain[i][0] in start_of:
                return chain[i][0]
            if any(text[g[0]] == "+" for g in chain[i + 1 :]):
                continue
            if self._begins_a_number(_compacted(text, chain[i:])):
                return chain[i][0]
        return len(text)

    # --- streaming ----------------------------------------------------------------------------

    def _hold_point(self, view: _ReplyView, fpos: int) -> int:
        """The earliest original offset from which the rest could still grow into a key."""
        folded = view.folded
        for p in range(max(fpos, len(folded) - self.max_len), len(folded)):
            if p > 0 and view.origin[p] == view.origin[p - 1]:
                continue  # inside the fold of one character ("ß" -> "ss")
            if folded[p] == " " or folded[p] not in self._firsts:
                continue
            if self._could_grow_into_key(folded[p:]):
                return view.origin[p]
        return len(view.text)

    def _could_grow_into_key(self, folded_suffix: str) -> bool:
        """Whether the suffix begins a key, or an elision followed by the beginning of a key."""
        if self._begins_a_key(folded_suffix):
            return True
        for elision in _ELISIONS:
            if elision.startswith(folded_suffix):
                return bool(self._keys)
            if folded_suffix.startswith(elision) and self._begins_a_key(folded_suffix[len(elision):]):
                return True
        return False

    def _begins_a_key(self, folded_suffix: str) -> bool:
        i = bisect.bisect_left(self._prefixes, folded_suffix)
        return i < len(self._prefixes) and self._prefixes[i].startswith(folded_suffix)


def restore(text: str, vault: Vault) -> str:
    """The reply with every substitute of the vault replaced by its real value."""
    return Restorer(vault).restore(text)


def restore_args(arguments: str, vault: Vault, *, text: Restorer | None = None,
                 escaped: Restorer | None = None) -> str:
    """Tool-call arguments (JSON text) restored value by value; text that is not JSON is
    restored with JSON-escaped real values so it stays well-formed where it was. `text` and
    `escaped`: restorers already built for this vault state (plain, and with args=True)."""
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return (escaped or Restorer(vault, args=True)).restore(arguments)
    return json.dumps(_restore_json(parsed, text or Restorer(vault)), ensure_ascii=False)


def _restore_json(value: object, restorer: Restorer) -> object:
    if isinstance(value, str):
        return restorer.restore(value)
    if isinstance(value, list):
        return [_restore_json(v, restorer) for v in value]
    if isinstance(value, dict):
        return {restorer.restore(k): _restore_json(v, restorer) for k, v in value.items()}
    return value


# --- keys -----------------------------------------------------------------------------------------

def _keys_of(vault: Substitutes, *, args: bool) -> list[_Key]:
    keys: list[_Key] = []
    for sub, real in vault.entries.items():
        kind = vault.kinds.get(sub, "")
        # The patterns are only tried on what they can match: most substitutes are fakes.
        risky = (sub[:1] == "n" and bool(_NUMBER_TOKEN.match(sub))) or (len(sub) <= 3 and " " not in sub)
        out_real = _json_escape(real) if args else real
        keys.append(_Key(sub, out_real, kind, risky))
        marker = _MARKER.match(sub) if sub[:1] == "[" else None
        if marker:
            # Only the exact marker restores (and as a markdown renderer shows "\[PERSON1\]"): not
            # "[person1]", "[ PERSON1 ]", "{PERSON1}" nor a bare PERSON1, which the model may mean otherwise.
            keys[-1] = _Key(sub, out_real, kind, True)
            keys.append(_Key(f"\\[{marker.group(1)}\\]", out_real, kind, True))
        encoded = _url_encoded(sub)
        if encoded != sub:  # then its quote_plus form differs from it too
            encoded_real = _url_encoded(real)
            keys.append(_Key(encoded, encoded_real, kind, risky))
            keys.append(_Key(_plus_for_space(encoded), _plus_for_space(encoded_real), kind, risky))
        if args:
            for ascii_only in (True, False):
                escaped = json.dumps(sub, ensure_ascii=ascii_only)[1:-1]
                if escaped != sub:
                    keys.append(_Key(escaped, out_real, kind, risky))
    keys += _initial_keys(vault, args=args)
    keys += _host_keys(vault, args=args)
    return keys


class _ReplyView:
    """The reply as the matcher reads it: folded like FoldedText once its HTML character references
    are decoded ("H&#233;l&#232;ne", "&Eacute;lise", "Martin &amp; Fils" read as written on screen),
    with where each folded character starts and ends in the reply as written."""

    def __init__(self, text: str) -> None:
        self.text = text
        decoded, starts = _decode_references(text)
        view = FoldedText(decoded)
        self.folded = view.folded
        self._decoded, self._decoded_origin = decoded, view.origin
        if starts is None:
            self.origin = view.origin
            self._ends: list[int] | None = None
        else:
            self.origin = [starts[i] for i in view.origin]
            self._ends = [starts[i + 1] for i in view.origin]

    def end_of(self, f: int) -> int:
        """Where the folded character f ends in the reply as written."""
        return self._ends[f] if self._ends is not None else self.origin[f] + 1

    def in_compound(self, fstart: int, fend: int) -> bool:
        """Whether the folded match [fstart, fend) is part of a compound word as the reply reads."""
        return _in_compound(self._decoded, self._decoded_origin[fstart], self._decoded_origin[fend - 1] + 1)


_REFERENCE = deferred(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
# The start of a reference a streamed piece may not have finished ("&", "&#23", "&eacu").
_PARTIAL_REFERENCE = deferred(r"&(?:#[0-9]{0,7}|#[xX][0-9a-fA-F]{0,6}|[A-Za-z][A-Za-z0-9]{0,31})?\Z")


def _decode_references(text: str) -> tuple[str, list[int] | None]:
    """`text` with its character references decoded, and where each decoded character (and the end)
    starts in `text`; None for the offsets when there is nothing to decode."""
    if "&" not in text:
        return text, None
    pieces: list[str] = []
    starts: list[int] = []
    cursor = 0
    for match in _REFERENCE.finditer(text):
        decoded = html.unescape(match.group())
        if decoded == match.group():
            continue  # not a reference html knows ("&nom;")
        pieces.append(text[cursor : match.start()])
        starts.extend(range(cursor, match.start()))
        pieces.append(decoded)
        starts.extend([match.start()] * len(decoded))
        cursor = match.end()
    if not pieces:
        return text, None
    pieces.append(text[cursor:])
    starts.extend(range(cursor, len(text) + 1))
    return "".join(pieces), starts


def _is_host(surface: str) -> bool:
    """A host name's shape: labels joined by dots, nothing else ("evis-glatis.fr", "www.verlac.fr")."""
    return "." in surface and not any(ch.isspace() or ch in "@/:%\\" for ch in surface)


_WEB_KINDS = frozenset({"email", "url", "domain", "site", "profile"})


def _host_keys(vault: Substitutes, *, args: bool) -> list[_Key]:
    """Each fake registrable domain of the conversation's addresses and sites restores to the real one
    wherever it appears ("contact@evis-glatis.fr", "EVIS-GLATIS.FR" -> "karl-studio.fr"): a host of the
    user's own domain the model writes. A fake domain two real ones share: neither."""
    pairs: dict[str, set[str]] = {}
    for sub, real in vault.entries.items():
        if vault.kinds.get(sub) in _WEB_KINDS:
            fake_domain, real_domain = _registrable_of(sub), _registrable_of(real)
            if fake_domain and real_domain and fake_domain != real_domain:
                pairs.setdefault(fake_domain, set()).add(real_domain)
    return [_Key(fake, _json_escape(next(iter(reals))) if args else next(iter(reals)), "domain", False)
            for fake, reals in pairs.items() if len(reals) == 1 and fake not in vault.entries]


def _registrable_of(value: str) -> str:
    host = value.rpartition("@")[2] if "@" in value and "//" not in value else value.split("//", 1)[-1]
    host = host.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0].rpartition("@")[2].split(":", 1)[0]
    domain = registrable(host)
    return "" if not domain or is_webmail(domain) else domain


def _initial_keys(vault: Substitutes, *, args: bool) -> list[_Key]:
    """A person's fake with its first name as an initial ("L. Marcotte", "Lisa M.") restores to the
    real name with the real initial ("M. Dupont", "Marie D."); a form two people share: neither."""
    found: dict[str, list[tuple[str, str]]] = {}
    for sub, real in vault.entries.items():
        if vault.kinds.get(sub) != "person":
            continue
        fake_words, real_words = sub.split(), real.split()
        if len(fake_words) < 2 or len(fake_words) != len(real_words):
            continue
        ends = (fake_words[0], real_words[0], fake_words[-1], real_words[-1])
        if not all(len(w) > 2 and w[0].isalpha() for w in ends):
            continue
        pairs = (
            (f"{fake_words[0][0]}. {' '.join(fake_words[1:])}", f"{real_words[0][0]}. {' '.join(real_words[1:])}"),
            (f"{' '.join(fake_words[:-1])} {fake_words[-1][0]}.", f"{' '.join(real_words[:-1])} {real_words[-1][0]}."),
        )
        for surface, restored in pairs:
            found.setdefault(fold(surface), []).append((surface, restored))
    keys = []
    for forms in found.values():  # the first is the primary's; a case variant ("L. MARCOTTE") may follow
        if len({fold(restored) for _, restored in forms}) == 1:
            surface, restored = forms[0]
            keys.append(_Key(surface, _json_escape(restored) if args else restored, "person", False))
    return keys


# Categories whose values are numbers a reply may regroup ("06.86.01.36.20", "+33 6 86 01 36 20",
# "FR7630006000011234567890189"): restored by their digits and letters alone, when they hold at
# least this many digits (shorter ones would match unrelated numbers).
COMPACT_CATEGORIES = frozenset({"phone", "card", "iban", "national_id", "company_id"})
MIN_COMPACT_DIGITS = 6
_MAX_GROUPS = 12  # a number is written in at most this many groups (an IBAN in 4-character groups: 9)
_GROUP_GAP = frozenset(" .-/()\u00a0\u202f")
_GROUP = deferred(r"\+?[0-9A-Za-z]+")
_ANY_DIGIT = deferred(r"[0-9]")
# Groups holding a digit joined by separators; a group starts only where no letter or digit precedes
# (linear on a long word). Inside a run every group holds a digit.
_DIGIT_GROUP = r"\+?[0-9A-Za-z]*[0-9][0-9A-Za-z]*"
_CHAIN = deferred(rf"(?<![0-9A-Za-z]){_DIGIT_GROUP}(?:[ .\-/()\u00a0\u202f]{{1,3}}{_DIGIT_GROUP})*")


class _Number(NamedTuple):
    real: str  # the real value as recorded (what replaces a match whose layout cannot be kept)
    form: str | None  # the real value's digits and letters in the form the fake was matched in


def _compact_index(vault: Substitutes, *, args: bool) -> dict[str, _Number]:
    """Compact form -> real value of every regroupable substitute (a form two values share: neither)."""
    index: dict[str, _Number] = {}
    clashes: set[str] = set()
    for sub, real in vault.entries.items():
        kind = vault.kinds.get(sub, "")
        if category_of(kind) not in COMPACT_CATEGORIES or sum(ch.isdigit() for ch in sub) < MIN_COMPACT_DIGITS:
            continue
        fake_forms, real_forms = (dialled_forms(sub), dialled_forms(real)) if kind == "phone" else (
            {"given": _alnum_upper(sub)}, {"given": _alnum_upper(real)})
        out_real = _json_escape(real) if args else real
        for name, form in fake_forms.items():
            number = _Number(out_real, real_forms.get(name))
            if index.setdefault(form, number).real != out_real:
                clashes.add(form)
    for form in clashes:
        del index[form]
    return index


def _relaid(surface: str, number: _Number) -> str:
    """The real number in the layout the model wrote the fake in ("+33 6 86 01 36 20" -> "+33 6 12 34 56
    78"), or as recorded when the two do not have as many digits and letters."""
    form = number.form
    if form is None or sum((ch.isascii() and ch.isalnum()) or ch == "+" for ch in surface) != len(form):
        return number.real
    chars = iter(form)
    out = []
    for ch in surface:
        if ch.isascii() and (ch.isalnum() or ch == "+"):
            new = next(chars)
            out.append(new.lower() if ch.islower() else new)
        else:
            out.append(ch)
    return "".join(out)


def _alnum_upper(value: str) -> str:
    return "".join(ch for ch in value if ch.isascii() and ch.isalnum()).upper()


def _chains(text: str, pos: int) -> list[list[tuple[int, int]]]:
    """Runs of digit-bearing groups from `pos` ("+33", "(0)6", "86"...) joined by one to three
    separators (spaces, dots, dashes, slashes, parentheses), found at C speed; a group glued to a
    letter outside ASCII ("é06") ends its run."""
    chains: list[list[tuple[int, int]]] = []
    for run in _CHAIN.finditer(text, pos):
        current: list[tuple[int, int]] = []
        for m in _GROUP.finditer(text, run.start(), run.end()):
            start, end = m.span()
            if (start > 0 and text[start - 1].isalnum()) or (end < len(text) and text[end].isalnum()):
                if current:
                    chains.append(current)
                current = []
                continue
            current.append((start, end))
        if current:
            chains.append(current)
    return chains


def _compacted(text: str, groups: list[tuple[int, int]]) -> str:
    return "".join(text[start:end] for start, end in groups).upper()


def _reaches_end(text: str, end: int) -> bool:
    """Nothing but separators follows: the number may go on in the next chunk."""
    return all(ch in _GROUP_GAP or ch == "+" for ch in text[end:])


# urllib.parse.quote(value, safe="") as one str.translate over the UTF-8 bytes read as Latin-1
# (one character per byte): the same text without urllib's per-byte Python loop, for every
# substitute and real value of each vault a restorer is built for.
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")
_PERCENT = {byte: f"%{byte:02X}" for byte in range(256) if byte not in _UNRESERVED}


def _url_encoded(value: str) -> str:
    return value.encode("utf-8").decode("latin-1").translate(_PERCENT)


def _plus_for_space(encoded: str) -> str:
    """quote_plus(value, safe="") from quote(value, safe=""): every "%" there starts a 3-character
    escape, so "%20" can only be an encoded space, which quote_plus writes "+"."""
    return encoded.replace("%20", "+")


def _json_escape(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)[1:-1]


_JOINERS = "-_\u2010\u2011"


def _in_compound(text: str, start: int, end: int) -> bool:
    """text[start:end] is joined by a hyphen or an underscore to a letter or digit on either side: a
    part of a compound word ("Lucy-Louis", "Marie-Lucy", "lucy_2"), not a whole fake."""
    before = start >= 2 and text[start - 1] in _JOINERS and text[start - 2].isalnum() and text[start].isalnum()
    after = end + 1 < len(text) and text[end] in _JOINERS and text[end + 1].isalnum() and text[end - 1].isalnum()
    return before or after


def _is_letter_or_digit(folded: str, i: int) -> bool:
    return 0 <= i < len(folded) and folded[i].isalnum()


def _bounded_at(folded: str, start: int, end: int, *, host: bool = False) -> bool:
    """Not glued inside a larger word, nor at the edge of a longer e-mail or domain token
    ("laura" in "laura.begin@x.fr" belongs to the address, which has its own key); a host name may
    follow "@" or a subdomain ("contact@verlac.fr", "www.verlac.fr")."""
    if folded[start].isalnum():
        if _is_letter_or_digit(folded, start - 1):
            return False
        if not host and start >= 2 and folded[start - 1] in ".@" and folded[start - 2].isalnum():
            return False
    if folded[end - 1].isalnum():
        if _is_letter_or_digit(folded, end):
            return False
        if end + 1 < len(folded) and folded[end] in ".@" and folded[end + 1].isalnum():
            return False
    return True


_ELISIONS = ("d'", "d’", "qu'", "qu’")


def _elision_before(folded: str, q: int) -> int | None:
    """Where a French elision that ends at q begins, when it begins a word (what
    `_elision_lengths` finds from that start)."""
    for elision in _ELISIONS:
        p = q - len(elision)
        if p >= 0 and folded.startswith(elision, p) and not _is_letter_or_digit(folded, p - 1):
            return p
    return None


def _elision_lengths(folded: str, p: int) -> tuple[int, ...]:
    """0, and the length of a French elision starting a word at p ("d'", "qu'")."""
    if _is_letter_or_digit(folded, p - 1):
        return (0,)
    for elision in _ELISIONS:
        if folded.startswith(elision, p):
            return (len(elision), 0)
    return (0,)


_WHITESPACE_RUN = deferred(r"\s+")


def _collapse(surface: str) -> str:
    # The one printable whitespace character is the space: a printable surface without two
    # spaces in a row has no run to collapse (most substitutes), and skips the regex.
    if surface.isprintable() and "  " not in surface:
        return surface
    return _WHITESPACE_RUN.sub(" ", surface)


def _mirror_case(surface: str, key: _Key) -> str:
    letters = [ch for ch in surface if ch.isalpha()]
    if key.kind in CASED_KINDS and len(letters) > 1 and all(ch.isupper() for ch in letters):
        return key.real.upper()
    return key.real


def _starts_with_vowel(value: str) -> bool:
    first = strip_accents(value[:1]).lower()
    return first in "aeiouyh"
