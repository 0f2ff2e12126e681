"""ml-worker (transformers.js + onnxruntime-web in Chromium) against the CPython path on the same model files:
e5 embeddings agree (cosine >= 0.999 per text, FR/EN/DE/ES/JA/ZH/RU), and the NER network run by the worker on
the arrays openmasq.ner.features made gives, once decoded, the same spans (code-point offsets and labels; scores
within 1e-3) as openmasq.ner.runtime.Tagger on CPython."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from ml_probe import MlWorker, open_ml_worker

embed = pytest.importorskip("openmasq.embed")
ner = pytest.importorskip("openmasq.ner.runtime")
from openmasq.ner import decode, features  # noqa: E402

PARITY_MIN_COSINE = 0.999  # issue 7
SCORE_TOLERANCE = 1e-3  # the two runtimes' float sums differ in the last digits; spans are rounded to 4

TEXTS = [
    "Le chat dort sur le canapé depuis ce matin.",
    "Marie Dupont travaille chez Airbus à Toulouse depuis 2019.",
    "Rappelle-moi d'envoyer le devis à la mairie avant vendredi.",
    "The quarterly report is due next Tuesday, not Monday.",
    "John Smith moved to Leeds to join a small robotics start-up.",
    "A kitten sleeps in the sun.",
    "Der Zug nach München hat heute zwanzig Minuten Verspätung.",
    "Frau Schneider leitet das Projekt seit letztem Herbst.",
    "Ich habe meinen Schlüssel im Büro vergessen.",
    "El médico me recomendó caminar treinta minutos al día.",
    "Lucía García vive en Sevilla con su hermano.",
    "¿Dónde está la estación de autobuses?",
    "明日の会議は午後三時に始まります。",
    "田中さんは大阪の銀行で働いています。",
    "猫がソファの上で寝ている。",
    "我们下周去北京参加技术会议。",
    "王小明在上海的一家医院工作。",
    "今天天气很好，适合散步。",
    "Завтра я поеду в Санкт-Петербург на поезде.",
    "Анна Иванова работает учительницей в Казани.",
    "Мой кот спит на диване весь день.",
    "passage and query prefixes must both work: 42 € / 3,5 % — «guillemets» et emoji 😀",
]

NER_SENTENCES = [
    # fr
    "Bonjour, je suis Marie Dupont et j'habite à Toulouse, 12 rue des Lilas.",
    "Peux-tu écrire à Jean-Pierre Lefèvre (jp.lefevre@example.fr) avant lundi ?",
    "Mon médecin, le docteur Sophie Lemoine, consulte à Lyon le mardi.",
    # en
    "Hi, my name is John Smith and I live at 42 Queen Street, Leeds.",
    "Please forward this to Emily Carter, her number is +44 20 7946 0958.",
    "Tom Hughes and Priya Patel will join the call from Manchester.",
    # de
    "Mein Name ist Klaus Becker, ich wohne in der Bahnhofstraße 14 in Hamburg.",
    "Frau Anna Schmidt hat gestern aus Berlin angerufen.",
    # es, it, lower case
    "Me llamo Lucía García y vivo en la calle Mayor 5 de Madrid.",
    "merci à karim pour le devis, on valide avec dupont transports",
    "Ho un appuntamento con l'avvocato Giulia Ferri a Bologna, studio Ferri & Conti.",
    "Carlos Fernández nos espera en Valencia el jueves.",
    # long text: several windows of the model
    " ".join(["Paul Martin a appelé Claire Bernard au sujet du dossier de Nantes."] * 60),
    # astral characters before a name: offsets are code points
    "😀😀 Rendez-vous avec Hélène Rousseau à 😀 Bordeaux.",
]


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


@pytest.fixture(scope="module")
def embedder() -> Any:
    try:
        return embed.Embedder()
    except embed.ModelNotBuilt as missing:
        pytest.skip(str(missing))


@pytest.fixture(scope="module")
def tagger() -> Any:
    return ner.Tagger()  # committed in the repo: never missing


@pytest.fixture
def ml(context: Any, site_server: Any) -> Iterator[MlWorker]:
    yield open_ml_worker(context, site_server.url)


def test_browser_embeddings_match_cpython_on_seven_languages(ml: MlWorker, embedder: Any) -> None:
    assert len(TEXTS) >= 20
    for kind in ("passage", "query"):
        browser = ml.embed(TEXTS, kind)
        cpython = embedder.embed(TEXTS, kind)
        cosines = [cosine(a, b) for a, b in zip(browser, cpython, strict=True)]
        worst = min(range(len(TEXTS)), key=lambda i: cosines[i])
        assert cosines[worst] >= PARITY_MIN_COSINE, (kind, TEXTS[worst], cosines[worst])
        assert all(len(v) == 384 and abs(math.sqrt(sum(x * x for x in v)) - 1) < 1e-4 for v in browser)


def test_browser_embeddings_do_not_depend_on_the_batch(ml: MlWorker) -> None:
    together = ml.embed(TEXTS[:16])
    alone = [ml.embed([text])[0] for text in TEXTS[:4]]
    assert all(cosine(a, b) >= 0.99999 for a, b in zip(together[:4], alone, strict=True))


def test_query_and_passage_prefixes_give_different_vectors(ml: MlWorker) -> None:
    query, passage = ml.embed([TEXTS[0]], "query")[0], ml.embed([TEXTS[0]], "passage")[0]
    assert cosine(query, passage) < 0.999


def test_browser_ner_spans_equal_cpython_tagger(ml: MlWorker, tagger: Any) -> None:
    found_any = 0
    for text in NER_SENTENCES:
        feats = features.featurise(text)
        browser = decode.spans(text, feats, ml.tag(feats))
        cpython = tagger.spans(text)
        assert [(s.start, s.end, s.kind, s.value) for s in browser] == [
            (s.start, s.end, s.kind, s.value) for s in cpython
        ], text
        assert all(abs(b.score - c.score) <= SCORE_TOLERANCE for b, c in zip(browser, cpython, strict=True))
        found_any += len(browser)
    assert found_any >= len(NER_SENTENCES)  # the sentences do name people: an empty model output would fail


def test_browser_scores_equal_cpython_scores(ml: MlWorker, tagger: Any) -> None:
    feats = features.featurise(NER_SENTENCES[0])
    browser = ml.tag(feats)
    cpython = tagger.scores(feats).ravel().tolist()
    assert len(browser) == len(cpython)
    assert max(abs(a - b) for a, b in zip(browser, cpython, strict=True)) < 1e-3


def test_ner_offsets_are_code_points_of_the_text(ml: MlWorker) -> None:
    text = NER_SENTENCES[-1]
    feats = features.featurise(text)
    spans = decode.spans(text, feats, ml.tag(feats))
    assert spans and all(text[s.start : s.end] == s.value for s in spans)
    assert any(s.value == "Hélène Rousseau" for s in spans)


def test_tag_requests_that_do_not_fit_are_refused(ml: MlWorker) -> None:
    assert ml.call({"type": "tag", "ids": [1, 2, 3], "flags": [], "windows": 1, "length": 1})["kind"] == "bad_request"
    assert ml.call({"type": "tag", "ids": "x", "flags": [], "windows": 1, "length": 1})["kind"] == "bad_request"


def test_bad_requests_get_errors_not_silence(ml: MlWorker) -> None:
    assert ml.call({"type": "embed", "texts": "not a list"})["kind"] == "bad_request"
    assert ml.call({"type": "load", "model": "gpt"})["kind"] == "bad_request"
    assert ml.call({"type": "nope"})["kind"] == "bad_request"
