"""Explicit memory asks ("retiens ça", "remember that", "覚えておいて") in 12 languages: such a
turn runs extraction at once, in explicit mode (reference 3.3, false positives cut: 12 item 11)."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# The rule: a turn is an explicit ask only when it holds a MEMORY DIRECTIVE, i.e. a memory verb
# in the imperative (or a request form such as "peux-tu retenir", "can you remember") at the start
# of a clause, with the object the verb needs to mean "store this" ("enregistre ça", not
# "enregistre le fichier"). Time and preference markers alone ("désormais", "dorénavant", "from now
# on", "je préfère", "I prefer") never qualify, nor does a conjugated verb with a subject ("je
# retiens que", "il note que", "I remember that"), nor an annotation heading ("Note : ..."). CJK
# phrases have no word boundaries and match anywhere, unless a subject sits right before them
# ("我记住了" is "I remembered").

EXPLICIT_LOOKBACK = 6  # messages re-read below the watermark by an explicit ask

# Words that may open a clause before the directive ("OK, alors retiens ça", "Please remember").
# They only extend a clause start, so "Il lit le rapport et note que" stays prose.
_LEAD_INS = (
    # fr
    "s'il te plait", "s'il vous plait", "stp", "svp", "et", "alors", "donc", "bon", "ok", "okay",
    "d'accord", "aussi", "surtout", "bien", "desormais", "dorenavant", "a l'avenir", "maintenant",
    "et puis", "oui", "ah", "oh", "tiens",
    # en
    "please", "pls", "plz", "and", "also", "so", "now", "then", "hey", "yes", "from now on",
    "going forward", "in future", "in the future",
    # es / it / pt
    "por favor", "y", "pues", "ahora", "tambien", "ademas", "per favore", "e", "ora", "anche",
    "allora", "agora", "entao", "tambem", "a partir de ahora", "d'ora in poi", "a partir de agora",
    # de / nl
    "bitte", "und", "jetzt", "dann", "auch", "ab jetzt", "alsjeblieft", "alstublieft", "en", "nu",
    "ook", "dus", "vanaf nu",
    # ru / ar
    "пожалуиста", "и", "а", "теперь", "тогда", "также", "отныне", "و", "رجاء", "من فضلك", "ايضا",
)

# Imperative memory directives, written in folded form (lower case, no accents, ' apostrophe).
# `END` is "nothing more in this clause": the pronoun object is the whole object.
_END = r"(?=\s{0,3}(?:$|[.!,;:)\n]))"
_WORDS = r"(?:[\w'-]{1,20} ){0,3}?"  # a few words between a verb and its memory complement

_FR = (
    r"(?:retiens|retenez)(?:-(?:le|la|les))?",
    r"(?:souviens|souvenez)[- ](?:toi|vous)",
    r"rappel(?:le|ez)[- ](?:toi|vous)",
    r"memoris(?:e|ez)(?:-(?:le|la|les))?",
    r"n'oubli(?:e|ez) (?:pas|jamais)",
    r"oublie pas",
    r"gard(?:e|ez)(?:-(?:le|la|les))? " + _WORDS + r"(?:en memoire|en tete|a l'esprit|dans (?:ta|votre) memoire)",
    r"not(?:e|ez)(?: bien|-(?:le|la|les)| (?:ca|cela|ceci|que|qu'|tout ca))",
    r"not(?:e|ez) (?:le|la|les|ca)" + _END,
    r"not(?:e|ez) " + _WORDS + r"(?:en memoire|dans (?:ta|votre) memoire)",
    r"enregistr(?:e|ez)(?:-(?:le|la|les)| (?:ca|cela|ceci|tout ca))",
    r"enregistr(?:e|ez) " + _WORDS + r"(?:en memoire|dans (?:ta|votre) memoire)",
    r"ajout(?:e|ez) " + _WORDS + r"(?:a|dans) (?:ta|votre) memoire",
    r"(?:mets|mettez) " + _WORDS + r"(?:en memoire|dans (?:ta|votre) memoire)",
    r"conserv(?:e|ez) (?:ca|cela|ceci|tout ca)(?:" + _END + r"| en memoire| dans (?:ta|votre) memoire)",
    r"pren(?:ds|ez) (?:bien )?note",
    r"a retenir\s{0,3}:",
    r"(?:(?:peux|pourrais|pourras)-tu|(?:pouvez|pourriez)-vous|tu (?:peux|pourrais)|vous (?:pouvez|pourriez)"
    r"|est-ce que tu peux) (?:bien )?(?:retenir|memoriser|noter|enregistrer|te souvenir|vous souvenir"
    r"|garder (?:ca |cela )?en memoire)",
    r"je (?:veux|voudrais|souhaite|aimerais) que tu (?:retiennes|notes|memorises|te souviennes|enregistres"
    r"|gardes (?:ca |cela )?en memoire)",
)

_EN = (
    r"remember(?= (?:that|this|these|those|it|my|our|me|i|i'm|we|to|the following|always|never|for (?:next time"
    r"|later|the future))\b|\s{0,3}(?:$|[.!,;:\n]))",
    r"(?:keep|bear) (?:(?:this|that|it|these|those) )?in mind",
    r"(?:don't|dont|do not|never) forget",
    r"note (?:that|this|it|these|those|down)\b",
    r"(?:make|take) (?:a )?note",
    r"memori[sz]e",
    r"(?:save|store|keep|put|add|commit) (?:this|that|it|these|those|all (?:of )?this|everything)"
    r"(?: (?:to|in|into) (?:your |the )?memory|" + _END + r")",
    r"(?:can|could|would|will) you (?:please )?(?:remember|note|memori[sz]e|keep (?:this |that |it )?in mind"
    r"|save this|store this)",
    r"i(?: want|'d like| would like| need) you to (?:remember|note|memori[sz]e|keep (?:this |that |it )?in mind)",
)

_ES = (
    r"recuerd(?:a|e)(?:lo)?(?= (?:que|esto|eso|lo|mi|siempre)\b|\s{0,3}(?:$|[.!,;:\n]))",
    r"acuerdate",
    r"no (?:te )?olvides",
    r"no olvide",
    r"memoriza(?:lo)?",
    r"guarda(?:lo)? (?:esto|eso)(?:" + _END + r"| en (?:tu |la )?memoria)",
    r"guarda(?:lo)? en (?:tu |la )?memoria",
    r"(?:anota|apunta) (?:esto|eso|que)",
    r"ten (?:presente|en cuenta que)",
    r"toma nota",
    r"(?:puedes|podrias) (?:recordar|memorizar|anotar|guardar esto)",
)

_DE = (
    r"merke? dir",
    r"merken sie sich",
    r"vergiss nicht",
    r"vergiß nicht",
    r"vergessen sie nicht",
    r"nicht vergessen",
    r"speichere? (?:das|dies|es)(?:" + _END + r"| ab| im gedachtnis| in deinem gedachtnis)",
    r"behalte (?:das|dies|es)(?:" + _END + r"| im (?:kopf|gedachtnis|hinterkopf))",
    r"notiere? (?:dir )?(?:das|dies|folgendes)",
    r"denke? daran",
    r"(?:kannst du|konntest du) (?:dir )?(?:das |dies )?(?:merken|notieren|speichern)",
)

_IT = (
    r"ricordati",
    r"ricordatelo",
    r"ricorda(?= (?:che|questo|questa|di|sempre)\b|\s{0,3}(?:$|[.!,;:\n]))",
    r"non (?:ti )?dimenticare",
    r"non scordar(?:ti|e)",
    r"memorizza(?:lo)?",
    r"tieni (?:a mente|presente)",
    r"annota(?:ti)? (?:questo|che)",
    r"salva (?:questo|questa|cio)(?:" + _END + r"| in memoria)",
    r"prendi nota",
    r"(?:puoi|potresti) (?:ricordare|memorizzare|annotare)",
)

_PT = (
    r"lembr(?:e|a)[- ](?:se|te)",
    r"lembra(?= (?:que|disso|disto|isso)\b)",
    r"nao (?:se |te )?esque(?:ca|cas|ce)",
    r"memoriz(?:e|a)",
    r"anote (?:isso|isto|que|ai)",
    r"(?:guarde|grave|salve) (?:isso|isto)(?:" + _END + r"| na (?:sua )?memoria)",
    r"tenha em mente",
    r"(?:pode|poderia) (?:lembrar|memorizar|anotar)",
)

_NL = (
    r"onthoud",
    r"onthou",
    r"vergeet (?:dit |dat |het )?niet",
    r"niet vergeten",
    r"sla (?:dit|dat|het) op",
    r"noteer (?:dit|dat|even)",
    r"(?:houd|hou) (?:dit |dat |het )?in gedachten",
    r"(?:kun|kan|zou) je (?:dit |dat )?(?:onthouden|noteren)",
)

_RU = (
    r"запомни(?:те)?",
    r"не забудь(?:те)?",
    r"не забываи(?:те)?",
    r"сохрани(?:те)? (?:это|в памяти|себе)",
    r"запиши(?:те)? (?:это|себе)",
    r"учти(?:те)?",
    r"имеи(?:те)? в виду",
    r"(?:можешь|можете) (?:запомнить|записать|сохранить)",
)

_AR = (
    r"[وف]?تذكري?(?= (?:ان|انني|اني|ذلك|هذا|هذه|دائما)|\s{0,3}(?:$|[.!،,:؛\n]))",
    r"[وف]?لا تنس[ىيا]?",
    r"[وف]?احفظي? (?:هذا|هذه|ذلك|في ذاكرتك)",
    r"[وف]?(?:سجل|دون)ي? (?:هذا|هذه|ذلك)",
    r"[وف]?ضعي? (?:هذا |ذلك )?في (?:ذاكرتك|اعتبارك)",
)

# CJK: no word boundaries, matched anywhere (zh simplified + traditional, ja, ko).
_CJK = (
    "记住", "記住", "记下", "記下", "别忘了", "別忘了", "不要忘记", "不要忘記", "别忘记", "別忘記",
    "帮我记", "幫我記", "存到记忆", "存到記憶", "记在心里", "記在心裡",
    "覚えておいて", "覚えといて", "覚えておけ", "覚えてください", "覚えてね", "忘れないで", "記憶して",
    "メモして", "メモしておいて",
    r"기억해 ?(?:줘|둬|주세요|두세요|놔)", r"기억해(?=\s{0,3}(?:$|[.!\n]))", r"잊지 ?(?:마|말아)",
    r"메모해 ?(?:줘|둬|주세요)", r"저장해 ?(?:줘|둬|주세요)",
)
# A subject right before a CJK directive makes it a statement ("我记住了", "他记住").
_CJK_SUBJECTS = "我他她们們"

_CLAUSE_START = r"(?:^|(?<=[.!?:;,\n\r(\[«\"“”»¿¡—–…،؛؟]))"
_BULLET = r"[\s\-*•>]{0,8}"


def fold_for_asks(text: str) -> str:
    """Lower case, one apostrophe, accents dropped on Latin, Greek, Cyrillic and Arabic letters
    only (Japanese voicing marks and Hangul syllables survive)."""
    text = text.lower().replace("’", "'").replace("ʼ", "'").replace("`", "'").replace("\u0640", "")
    text = text.replace("\u2010", "-").replace("\u2011", "-").replace("\u00a0", " ").replace("\u202f", " ")
    out: list[str] = []
    base = " "
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch):
            if ord(base) < 0x0800:
                continue
        else:
            base = ch
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def _alternation(phrases: tuple[str, ...]) -> str:
    return "|".join(f"(?:{p})" for p in phrases)


@lru_cache(maxsize=1)
def _directive_pattern() -> re.Pattern[str]:
    lead = _alternation(tuple(re.escape(w) for w in sorted(_LEAD_INS, key=len, reverse=True)))
    verbs = _alternation(_FR + _EN + _ES + _DE + _IT + _PT + _NL + _RU + _AR)
    return re.compile(
        rf"{_CLAUSE_START}{_BULLET}(?:(?:{lead})[\s,]{{1,4}}){{0,3}}(?:{verbs})(?![^\W_])"
    )


@lru_cache(maxsize=1)
def _cjk_pattern() -> re.Pattern[str]:
    return re.compile(rf"(?<![{_CJK_SUBJECTS}])(?:{_alternation(_CJK)})")


def is_explicit_memory_ask(text: str) -> bool:
    """True when the text asks the assistant to remember something (see the module rule)."""
    if not text or not text.strip():
        return False
    folded = fold_for_asks(text)
    return bool(_directive_pattern().search(folded) or _cjk_pattern().search(folded))
