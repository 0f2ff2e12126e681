"""Explicit memory asks in 12 languages (reference 3.3, 11.1 cases 32-36) with fewer false positives
(reference 12 item 11): a directive at the start of a clause, never a bare marker or a statement."""

from __future__ import annotations

import pytest
from scaling import assert_linear

from openmasq.memory.extract.explicit import fold_for_asks, is_explicit_memory_ask

MUST_MATCH = [
    # French (reference cases 2, 32, 33 and more)
    ("fr", "retiens que je préfère le train"),
    ("fr", "Retiens ça"),
    ("fr", "souviens-toi que je pars tôt"),
    ("fr", "Souviens toi que je pars tôt"),
    ("fr", "note bien : jamais le lundi"),
    ("fr", "note les en mémoire"),
    ("fr", "note-les en mémoire"),
    ("fr", "mémorise ça"),
    ("fr", "mémorise"),
    ("fr", "memorise ca"),
    ("fr", "garde ça en mémoire"),
    ("fr", "garde en mémoire"),
    ("fr", "Gardez bien cela en tête"),
    ("fr", "enregistre ça"),
    ("fr", "ajoute ça à ta mémoire"),
    ("fr", "conserve ça"),
    ("fr", "n’oublie pas que le client paie à 60 jours"),
    ("fr", "N'oubliez jamais mon fuseau horaire"),
    ("fr", "OK, alors retiens tout ça dans ta mémoire"),
    ("fr", "Désormais, retiens que je tutoie mes clients"),
    ("fr", "Dorénavant note que les devis partent le lundi"),
    ("fr", "Peux-tu retenir que Marc est mon associé ?"),
    ("fr", "tu peux noter que la réunion est mensuelle"),
    ("fr", "Je voudrais que tu retiennes le nom du projet"),
    ("fr", "Prends note : on facture au forfait"),
    ("fr", "Le client a changé d'avis.\nRetiens-le."),
    ("fr", "- retiens la composition du gouvernement français"),
    # English (reference case 35, minus the two bare markers: see MUST_NOT_MATCH)
    ("en", "Remember that I work Tuesdays from home"),
    ("en", "keep in mind I never ship on Fridays"),
    ("en", "don't forget: invoices go out on the 1st"),
    ("en", "don’t forget my timezone is CET"),
    ("en", "note that the client prefers short emails"),
    ("en", "memorize this"),
    ("en", "save this"),
    ("en", "note this down"),
    ("en", "Please remember my daughter's name is Léa"),
    ("en", "From now on, remember to answer in French"),
    ("en", "Could you remember that the deadline moved?"),
    ("en", "add this to your memory"),
    ("en", "I'd like you to remember the project code"),
    # Spanish
    ("es", "recuerda que trabajo los martes"),
    ("es", "no olvides que el cliente paga a 60 días"),
    ("es", "guarda esto"),
    ("es", "Por favor, memoriza mi dirección de trabajo"),
    # German
    ("de", "merk dir, dass ich dienstags arbeite"),
    ("de", "vergiss nicht: Rechnungen am Monatsersten"),
    ("de", "speichere das"),
    ("de", "behalte das im Kopf"),
    ("de", "Bitte merken Sie sich meine Zeitzone"),
    # Italian
    ("it", "ricordati che lavoro il martedì"),
    ("it", "non dimenticare la scadenza"),
    ("it", "memorizza questo"),
    ("it", "tieni a mente che preferisco l'italiano"),
    # Portuguese
    ("pt", "lembre-se de que trabalho às terças"),
    ("pt", "não esqueça o prazo"),
    ("pt", "anote isso"),
    # Dutch
    ("nl", "onthoud dat ik op dinsdag werk"),
    ("nl", "vergeet niet de factuur"),
    ("nl", "sla dit op"),
    # Russian
    ("ru", "запомни, что я работаю по вторникам"),
    ("ru", "не забудь про дедлайн"),
    ("ru", "Сохрани это в памяти"),
    # Arabic
    ("ar", "تذكر أنني أعمل يوم الثلاثاء"),
    ("ar", "احفظ هذا"),
    ("ar", "لا تنسَ الموعد"),
    # Chinese (simplified and traditional), Japanese, Korean
    ("zh", "请记住我周二在家工作"),
    ("zh-Hant", "別忘了發票"),
    ("ja", "これを覚えておいてください"),
    ("ja", "締め切りを忘れないでね"),
    ("ko", "내 시간대를 기억해 줘"),
    ("ko", "마감일 잊지 마"),
]

MUST_NOT_MATCH = [
    # Bare time and preference markers (reference 12 item 11)
    ("fr", "désormais"),
    ("fr", "Désormais je préfère le thé"),
    ("fr", "dorénavant on fera les points le lundi"),
    ("fr", "je préfère le train"),
    ("fr", "ma préférence va au train"),
    ("fr", "à l'avenir, envoie les devis en PDF"),
    ("en", "from now on, answer in French"),
    ("en", "I prefer bullet points"),
    ("en", "going forward we ship on Mondays"),
    ("es", "a partir de ahora escribe en español"),
    ("es", "prefiero el tren"),
    ("de", "ab jetzt schreiben wir auf Deutsch"),
    ("it", "d'ora in poi preferisco l'italiano"),
    ("pt", "a partir de agora prefiro o trem"),
    ("nl", "vanaf nu werken we thuis"),
    ("ru", "отныне пиши по-русски"),
    ("ar", "من الآن فصاعدا اكتب بالعربية"),
    ("ko", "앞으로는 한국어로 답해"),
    # A memory verb with a subject: a statement, not an ask
    ("fr", "je retiens que le devis est trop cher"),
    ("fr", "Ce que je retiens, c'est le prix"),
    ("fr", "Il note que les ventes baissent"),
    ("fr", "On note que le client hésite"),
    ("en", "I remember that meeting well"),
    ("en", "Do you remember the meeting?"),
    ("en", "I'll keep that in mind"),
    ("en", "we never forget a deadline"),
    ("de", "ich merke mir das nie"),
    ("nl", "ik onthoud dat niet"),
    ("zh", "我记住了"),
    ("ja", "その名前は覚えています"),
    ("ko", "그거 기억해?"),
    ("ru", "я запомнил его имя"),
    # Memory words in another sense (reference case 34 and more)
    ("fr", "quelle heure est-il ?"),
    ("fr", "quels sont les concurrents ?"),
    ("fr", "enregistre le fichier sur le disque"),
    ("fr", "garde le rythme"),
    ("fr", "la mémoire vive de mon PC"),
    ("fr", "la mémorisation est un sujet passionnant"),
    ("fr", "note le numéro de version du paquet dans le changelog"),
    ("en", "what time is it?"),
    ("en", "save this file as PDF"),
    ("en", "Note the difference between the two APIs"),
    ("en", "Remember when we went to Lyon?"),
    ("en", "My memory is bad these days"),
    ("en", "Note: the API is rate limited"),
    ("fr", "Note : le serveur redémarre à 3h"),
    ("es", "¿qué hora es?"),
    ("es", "guarda el archivo en el escritorio"),
    ("de", "Wie spät ist es?"),
    ("de", "behalte das Wechselgeld"),
    ("it", "che ore sono?"),
    ("pt", "que horas são?"),
    ("nl", "hoe laat is het?"),
    ("ru", "который час?"),
    ("ru", "сохрани файл на диск"),
    ("ar", "كم الساعة؟"),
    ("zh", "今天天气怎么样"),
    ("ja", "今日はいい天気ですね"),
    ("ko", "오늘 날씨 어때?"),
]


def test_the_tables_cover_twelve_languages_with_forty_phrases_each_way():
    assert len(MUST_MATCH) >= 40 and len(MUST_NOT_MATCH) >= 40
    languages = {lang.split("-")[0] for lang, _ in MUST_MATCH}
    assert languages == {"fr", "en", "es", "de", "it", "pt", "nl", "ru", "ar", "zh", "ja", "ko"}
    assert {lang.split("-")[0] for lang, _ in MUST_NOT_MATCH} == languages


@pytest.mark.parametrize(("lang", "text"), MUST_MATCH)
def test_a_memory_directive_is_an_explicit_ask(lang: str, text: str):
    assert is_explicit_memory_ask(text), f"{lang}: {text}"


@pytest.mark.parametrize(("lang", "text"), MUST_NOT_MATCH)
def test_other_text_is_not_an_explicit_ask(lang: str, text: str):
    assert not is_explicit_memory_ask(text), f"{lang}: {text}"


def test_an_empty_or_blank_text_is_not_an_ask():
    assert not is_explicit_memory_ask("")
    assert not is_explicit_memory_ask("  \n ")


@pytest.mark.parametrize("text", ["mémorise", "mémorisez-le", "MÉMORISE ÇA", "memorise"])
def test_accents_and_case_do_not_matter(text: str):
    assert is_explicit_memory_ask(text)


def test_boundaries_are_unicode_aware_a_longer_word_is_not_the_verb():
    # "retiens" inside "retiensé" or "mémorise" inside "mémorisé" would need a letter after.
    assert not is_explicit_memory_ask("mémoriser des listes est utile")
    assert not is_explicit_memory_ask("souviens-toiture")


def test_fold_keeps_japanese_voicing_marks_and_hangul():
    assert fold_for_asks("忘れないで") == "忘れないで"
    assert fold_for_asks("기억해 줘") == "기억해 줘"
    assert fold_for_asks("Mémorise’") == "memorise'"


HOSTILE_ASKS = {
    "commas": ", " * 50_000,
    "pleases": ", please " * 11_000,
    "gardes": "garde " * 17_000,
    "remembers": "remember" * 12_500,
    "ideograms": "记" * 100_000,
}


@pytest.mark.parametrize("text", list(HOSTILE_ASKS.values()), ids=list(HOSTILE_ASKS))
def test_detection_is_linear_on_hostile_text(text: str):
    assert_linear(is_explicit_memory_ask, text)
