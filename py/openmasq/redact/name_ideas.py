"""First names offered as names to choose ("¿Rosa o Luna? Ayúdame a elegir nombre para mi perrita", "le nom du
chat : Aurore, Paris ou Grace ?", "ideas de nombres para una cafetería, algo tipo Aurora, Luna, Cielo"): in a
message asking for the name of a pet, a baby or a business, a list of single words is the candidates, not people.
Read from the text around the span only; the policy spares them below `strict`."""

from __future__ import annotations

from functools import lru_cache

from ..patterns import deferred
from . import lexicon

# What a message asks a name for: a pet, a baby, a business or a product.
_NAMED_THINGS = (
    r"(?:chat|chatte|chien|chienne|chiot|chaton|b[ée]b[ée]|perr[oa]s?|perrit[oa]|gat[oa]s?|gatit[oa]|cats?|dogs?|"
    r"pupp(?:y|ies)|kittens?|bab(?:y|ies)|katzen?|hund|welpen?|kätzchen|cane|gatt[oa]|cucciol[oa]|bambin[oa]|"
    r"neonat[oa]|caf[ée]|cafeter[íi]a|restaurant|restaurante|ristorante|boutique|shop|tienda|negozio|laden|"
    r"entreprise|startup|start-up|empresa|azienda|firma|company|business|negocio|app|marque|brand|marca|marke|"
    r"produit|product|producto|prodotto|projet|project|proyecto|progetto)"
)
# A request for a name: a naming word, then within a few words what is to be named; or "baby names".
_NAMING_REQUEST = deferred(
    r"(?i)\b(?:pr[ée]noms?|noms?|nombres?|names?|vornamen?|namen?|nomi|nome|appeler|llamar|call|nennen|chiamare)\b"
    rf"[^.?!\n]{{0,30}}?\b{_NAMED_THINGS}\b|\b{_NAMED_THINGS}[ -]?(?:names?|namen)\b"
)
_LIST_WORD = deferred(r"[¿¡\"'«“]?([A-ZÀ-ÖØ-Þ][^\W\d_]+)")
_LIST_LINK = deferred(r"[\"'»”…]*[ \t]*(?:,|/|\bor\b|\bou\b|\bo\b|\boder\b|\by\b|\bet\b|\band\b|\be\b)[ \t]*")
_WORD = deferred(r"[^\W\d_]+")
WINDOW = 60


def offered_as_a_name(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] (one word, or single words joined by "o", "or", commas) is in a list of two names
    or more offered in a message that asks for the name of a pet, a baby or a business, and no word introducing a
    person comes before the list ("dis à Marie ou Paul" names people)."""
    if not _asks_for_a_name(text):
        return False
    line_start = max(text.rfind("\n", max(0, start - WINDOW), start) + 1, start - WINDOW)
    line_end = text.find("\n", end, end + WINDOW)
    line = text[line_start : line_end if line_end >= 0 else min(len(text), end + WINDOW)]
    for list_start, list_end, count in _lists(line):
        if list_start <= start - line_start and end - line_start <= list_end and count >= 2:
            return not _person_cue_before(line[:list_start])
    return False


@lru_cache(maxsize=8)
def _asks_for_a_name(text: str) -> bool:
    """Read once per text (a string's hash is cached): every person span of the text asks."""
    return _NAMING_REQUEST.search(text) is not None


def _lists(line: str) -> list[tuple[int, int, int]]:
    """(start, end, how many words) of each run of capitalised single words joined by list links."""
    runs: list[tuple[int, int, int]] = []
    position = 0
    while position < len(line):
        m = _LIST_WORD.match(line, position)
        if m is None or (position > 0 and line[position - 1].isalnum()):
            position += 1
            continue
        first, count = m.start(), 1
        last_end = m.end()
        while (link := _LIST_LINK.match(line, last_end)) is not None and (
                following := _LIST_WORD.match(line, link.end())) is not None:
            count += 1
            last_end = following.end()
        runs.append((first, last_end, count))
        position = last_end
    return runs


def _person_cue_before(before: str) -> bool:
    words = _WORD.findall(before)[-2:]
    keys = [lexicon.lexicon_key(word) for word in words]
    cues, links = lexicon.list_keys("person_cues.txt"), lexicon.list_keys("person_links.txt")
    return any(key in cues or key in links or key in ("a", "to") for key in keys[-1:]) or (
        len(keys) == 2 and keys[0] in cues)
