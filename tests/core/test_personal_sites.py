"""A site that is the writer's own, or whose host spells a person's name, is masked (kind "site"); other sites
stay as written."""

from __future__ import annotations

import pytest

from openmasq.redact import RedactOptions, Vault, pseudonymise, restore


def _redact(text: str):
    return pseudonymise(text, Vault.new("99" * 32), RedactOptions())


@pytest.mark.parametrize("text,url", [
    ("Ehrliches Feedback zu meiner Seite bitte: https://julia-hoffmann-fotografie.de/portfolio",
     "julia-hoffmann-fotografie"),
    ("rate my site honestly: https://danielagarcia.design, thanks", "danielagarcia"),
    ("Mi dai un parere sul nostro sito? https://www.agriturismo-poggiodeilupi.it grazie", "poggiodeilupi"),
    ("¿Qué opinas? https://www.clases-pablo-arias.com", "pablo-arias"),
    # a surname beside another word, in the domain behind a subdomain
    ("l'API https://crm.autohaus-kessler.de/api/v2/leads renvoie 401", "autohaus-kessler"),
    ("https://api.dolibarr-lemoine.fr/api/index.php/invoices répond en 504", "dolibarr-lemoine"),
    # a trade word glued to a name: a small business's own domain
    ("check out our menu at www.trattoriadamimmo-sorrento.it before friday", "trattoriadamimmo"),
    ("la web de la academia es academiaidiomaslaurasanz.es", "academiaidiomaslaurasanz"),
    # a page under a profile's handle that spells a person's name
    ("https://github.com/jdupont42/dotfiles has my config", "jdupont42"),
    ("book at calendly.com/tom-harris/30min", "tom-harris"),
])
def test_an_own_or_personal_site_is_masked_and_restored(text: str, url: str) -> None:
    result = _redact(text)
    assert url not in result.text
    assert restore(result.text, result.vault) == text


@pytest.mark.parametrize("text", [
    "read https://docs.python.org/3/library/re.html please",
    "see https://www.lemonde.fr/politique",
    "compare https://www.booking.com and https://www.mariokart.com",
    "https://www.burger-king.fr, https://www.le-bon-coin.fr, https://www.maisons-du-monde.com",
    "clone https://github.com/python/cpython and read https://github.com/microsoft/vscode/issues/123",
    "is restaurantguru.com reliable?",
])
def test_public_sites_stay(text: str) -> None:
    assert _redact(text).text == text
