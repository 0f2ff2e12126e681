"""Put the real values back into a model's reply, for display or for tool arguments.

One left-to-right pass over all substitutes, longest first, so restored text is never
re-scanned. A substitute matches in any case, with or without accents, with separators
changed, wrapped across lines, with a possessive, URL-encoded, or (for tool arguments)
JSON-escaped. Unknown text that only looks like a fake is left alone."""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote, quote_plus

from .text import fold, fold_char, strip_accents, tolerant_pattern, word_bounded
from .vault import Vault

_MARKER = re.compile(r"^\[([A-Za-z_]+\d+[a-z]?)\]$")
_NUMBER_TOKEN = re.compile(r"^n\d+$")
_ELISION = r"(?:(?<![^\W_])(?P<el>[dD]|[qQ][uU])['’])?"
CASED_KINDS = frozenset({"person", "org", "location", "address", "username"})
_LOOKAHEAD = 2


@dataclass(frozen=True)
class _Key:
    surface: str  # how the substitute may appear in the reply
    real: str  # what replaces it
    kind: str
    risky: bool  # only its exact spelling restores (number tokens, very short words)


class Restorer:
    """Compiled matcher for one vault state (build once per reply)."""

    def __init__(self, vault: Vault, *, args: bool = False) -> None:
        self.args = args
        keys = list(_keys_of(vault, args=args))
        self._exact: dict[str, _Key] = {}
        self._folded: dict[str, set[str]] = {}
        self._by_fold: dict[str, _Key] = {}
        for key in keys:
            self._exact.setdefault(_collapse(key.surface), key)
            folded = fold(key.surface)
            self._folded.setdefault(folded, set()).add(key.real)
            self._by_fold.setdefault(folded, key)
        ordered = sorted({k.surface for k in keys}, key=lambda s: (-len(s), s))
        self.pattern: re.Pattern[str] | None = None
        if ordered:
            body = "|".join(_inside_no_address(word_bounded(_key_pattern(s), s), s) for s in ordered)
            self.pattern = re.compile(f"{_ELISION}(?P<key>{body})")
        # Folded spellings (with an optional elision) for the streaming hold-back test.
        prefixes = {fold(s) for s in ordered}
        prefixes |= {f"{el}'{p}" for p in list(prefixes) for el in ("d", "qu")}
        prefixes |= {f"{el}’{p}" for p in list(prefixes) if "'" not in p for el in ("d", "qu")}
        self._prefixes = sorted(prefixes)
        self._firsts = {p[0] for p in self._prefixes if p}
        self.max_len = max((len(s) for s in ordered), default=0) * 4 + 8

    # --- whole text -------------------------------------------------------------------------

    def restore(self, text: str) -> str:
        out, _ = self.restore_until(text, 0, len(text), final=True)
        return out

    def restore_until(self, text: str, pos: int, cut: int, *, final: bool) -> tuple[str, int]:
        """Restore text[pos:cut], stopping earlier before a match that might still change
        with more text (when not final). Returns the output and where it stopped."""
        if self.pattern is None:
            return text[pos:cut], cut
        pieces: list[str] = []
        cursor = pos
        for m in self.pattern.finditer(text, pos):
            if m.start() >= cut:
                break
            # Not final: the look-aheads peek up to two characters past a match.
            if m.end() > cut or (not final and m.end() + _LOOKAHEAD > len(text)):
                cut = m.start()
                break
            pieces.append(text[cursor : m.start()])
            pieces.append(self._replacement(m))
            cursor = m.end()
        pieces.append(text[cursor:cut])
        return "".join(pieces), cut

    def _replacement(self, m: re.Match[str]) -> str:
        surface = m.group("key")
        elision = m.group("el")
        real = self._resolve(surface)
        if real is None:
            return m.group()
        if elision is None:
            return real
        apostrophe = m.group()[len(elision)]
        if _starts_with_vowel(real):
            return f"{elision}{apostrophe}{real}"
        # "d'Ostrel" restored to a consonant-initial name reads "de Karl Studio".
        return f"{elision}{'e' if elision[-1].islower() else 'E'} {real}"

    def _resolve(self, surface: str) -> str | None:
        exact = self._exact.get(_collapse(surface))
        if exact is not None:
            return exact.real
        folded = fold(surface)
        reals = self._folded.get(folded, set())
        key = self._by_fold.get(folded)
        if key is None or key.risky or len(reals) != 1:
            return None
        if " " not in folded and not any(ch.isupper() for ch in surface):
            return None  # "eau claire" is not the fake "Claire" (same rule as the send side)
        return _mirror_case(surface, key)

    # --- streaming ----------------------------------------------------------------------------

    def hold_point(self, text: str, pos: int) -> int:
        """The earliest offset from which the rest of the text could still grow into a
        substitute: everything before it can be released."""
        start = max(pos, len(text) - self.max_len)
        for q in range(start, len(text)):
            ch = fold_char(text[q])
            if ch == " " or ch[:1] not in self._firsts:
                continue
            if self._could_grow_into_key(fold(text[q:])):
                return q
        return len(text)

    def _could_grow_into_key(self, folded_suffix: str) -> bool:
        if not folded_suffix:
            return False
        i = bisect.bisect_left(self._prefixes, folded_suffix)
        return i < len(self._prefixes) and self._prefixes[i].startswith(folded_suffix)


def restore(text: str, vault: Vault) -> str:
    """The reply with every substitute of the vault replaced by its real value."""
    return Restorer(vault).restore(text)


def restore_args(arguments: str, vault: Vault) -> str:
    """Tool-call arguments (JSON text) restored value by value; text that is not JSON is
    restored with JSON-escaped real values so it stays well-formed where it was."""
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return Restorer(vault, args=True).restore(arguments)
    restorer = Restorer(vault)
    return json.dumps(_restore_json(parsed, restorer), ensure_ascii=False)


def _restore_json(value: object, restorer: Restorer) -> object:
    if isinstance(value, str):
        return restorer.restore(value)
    if isinstance(value, list):
        return [_restore_json(v, restorer) for v in value]
    if isinstance(value, dict):
        return {restorer.restore(k): _restore_json(v, restorer) for k, v in value.items()}
    return value


# --- keys -----------------------------------------------------------------------------------------

def _keys_of(vault: Vault, *, args: bool) -> list[_Key]:
    keys: list[_Key] = []
    for sub, real in vault.entries.items():
        kind = vault.kinds.get(sub, "")
        risky = bool(_NUMBER_TOKEN.match(sub)) or (len(sub) <= 3 and " " not in sub)
        out_real = _json_escape(real) if args else real
        keys.append(_Key(sub, out_real, kind, risky))
        marker = _MARKER.match(sub)
        if marker:
            keys.append(_Key(marker.group(1), out_real, kind, True))
            keys.append(_Key(f"\\[{marker.group(1)}\\]", out_real, kind, True))
        for encode in (quote, quote_plus):
            encoded = encode(sub, safe="")
            if encoded != sub:
                keys.append(_Key(encoded, encode(real, safe=""), kind, risky))
        if args:
            for ascii_only in (True, False):
                escaped = json.dumps(sub, ensure_ascii=ascii_only)[1:-1]
                if escaped != sub:
                    keys.append(_Key(escaped, out_real, kind, risky))
    return keys


def _json_escape(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)[1:-1]


@lru_cache(maxsize=8192)
def _key_pattern(surface: str) -> str:
    if _MARKER.match(surface) or surface.startswith("\\["):
        return re.escape(surface)
    return tolerant_pattern(surface)


def _inside_no_address(source: str, surface: str) -> str:
    """A name key must not match the start or end of a longer e-mail or domain token
    ("Laura" in "laura.begin@x.fr" belongs to the address, which has its own key)."""
    left = r"(?<![^\W_][.@])" if surface[:1].isalnum() else ""
    right = r"(?![.@][^\W_])" if surface[-1:].isalnum() else ""
    return f"{left}{source}{right}"


def _collapse(surface: str) -> str:
    return re.sub(r"\s+", " ", surface)


def _mirror_case(surface: str, key: _Key) -> str:
    letters = [ch for ch in surface if ch.isalpha()]
    if key.kind in CASED_KINDS and len(letters) > 1 and all(ch.isupper() for ch in letters):
        return key.real.upper()
    return key.real


def _starts_with_vowel(value: str) -> bool:
    first = strip_accents(value[:1]).lower()
    return first in "aeiouyh"
