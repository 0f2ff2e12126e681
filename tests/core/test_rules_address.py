"""Rule detection of street addresses (FR, EN, DE, ES, IT) with their postal code and city."""

from __future__ import annotations

import pytest

from openmasq.redact.rules import detect_addresses, detect_rules


def addresses(text: str) -> list[tuple[str, int, int]]:
    return [(s.value, s.start, s.end) for s in detect_rules(text) if s.kind == "address"]


ADDRESSES = [
    # French
    ("J'habite au 12 rue de la Paix, 75002 Paris.", "12 rue de la Paix, 75002 Paris"),
    ("12 bis, avenue Victor Hugo", "12 bis, avenue Victor Hugo"),
    ("3 place de l'Église 69001 Lyon", "3 place de l'Église 69001 Lyon"),
    ("au 8 boulevard Saint-Michel", "8 boulevard Saint-Michel"),
    ("5 allée des Tilleuls\n33000 Bordeaux", "5 allée des Tilleuls\n33000 Bordeaux"),
    ("14 chemin du Moulin", "14 chemin du Moulin"),
    ("7 impasse Jean Jaurès", "7 impasse Jean Jaurès"),
    ("2 quai d'Orsay 75007 Paris", "2 quai d'Orsay 75007 Paris"),
    ("40 Rue du 8 Mai 1945", "40 Rue du 8 Mai 1945"),
    ("10 cours Mirabeau, 13100 Aix-en-Provence", "10 cours Mirabeau, 13100 Aix-en-Provence"),
    ("1 route de Lyon, 38000 Grenoble CEDEX 9", "1 route de Lyon, 38000 Grenoble CEDEX 9"),
    ("12 rue de la paix, 75002 paris", "12 rue de la paix, 75002 paris"),
    ("12\u00a0rue de la Paix", "12\u00a0rue de la Paix"),
    # English
    ("221B Baker Street, London NW1 6XE", "221B Baker Street, London NW1 6XE"),
    ("1600 Pennsylvania Avenue NW, Washington, DC 20500", "1600 Pennsylvania Avenue NW, Washington, DC 20500"),
    ("10 Downing Street", "10 Downing Street"),
    ("742 Evergreen Terrace", "742 Evergreen Terrace"),
    ("350 Fifth Ave, Apt 5B", "350 Fifth Ave, Apt 5B"),
    ("1585 Broadway", "1585 Broadway"),
    ("tenant at Flat 3, 56 Gloucester Road, London SW7 4QT.", "Flat 3, 56 Gloucester Road, London SW7 4QT"),
    # typed in lower case: the postcode says the word before it is the city
    ("im at 14 cranbrook rd, bristol bs6 7bw, uber says", "14 cranbrook rd, bristol bs6 7bw"),
    ("my address is 4 elm street, springfield, il 62704", "4 elm street, springfield, il 62704"),
    ("Appt 12, 3 rue Nationale 59000 Lille", "Appt 12, 3 rue Nationale 59000 Lille"),
    # German
    ("Hauptstraße 5, 10115 Berlin", "Hauptstraße 5, 10115 Berlin"),
    ("Berliner Str. 12", "Berliner Str. 12"),
    ("Am Markt 3", "Am Markt 3"),
    ("Lindenweg 7a", "Lindenweg 7a"),
    ("Karl-Marx-Allee 90\n10243 Berlin", "Karl-Marx-Allee 90\n10243 Berlin"),
    ("Marktplatz 1, 8001 Zürich", "Marktplatz 1, 8001 Zürich"),
    # Spanish
    ("Calle Mayor 5, 28013 Madrid", "Calle Mayor 5, 28013 Madrid"),
    ("C/ Alcalá 23", "C/ Alcalá 23"),
    ("Avenida de la Constitución, 12", "Avenida de la Constitución, 12"),
    ("Plaza Mayor 1", "Plaza Mayor 1"),
    ("Paseo de la Castellana nº 100", "Paseo de la Castellana nº 100"),
    # Italian
    ("Via Roma 10, 00100 Roma", "Via Roma 10, 00100 Roma"),
    # French street types with the number after the name, as in Switzerland and Belgium
    ("le bail de mon appart avenue de Cour 58, préavis de 3 mois", "avenue de Cour 58"),
    ("Livraison : rue des Deux-Ponts 14, 1205 Genève", "rue des Deux-Ponts 14, 1205 Genève"),
    ("via Giuseppe Garibaldi, 12", "via Giuseppe Garibaldi, 12"),
    ("Viale Europa 22/A", "Viale Europa 22/A"),
    ("Piazza Navona 5", "Piazza Navona 5"),
    ("Corso Buenos Aires 3, 20124 Milano MI", "Corso Buenos Aires 3, 20124 Milano MI"),
    ("Via dell'Orso 7", "Via dell'Orso 7"),
    # a floor, a door or a staircase between the house number and the postal code
    ("vivo en calle Mayor 12, 3º B, 28013 Madrid", "calle Mayor 12, 3º B, 28013 Madrid"),
    ("Calle de Alcalá 214, 2º izq., 28028 Madrid", "Calle de Alcalá 214, 2º izq., 28028 Madrid"),
    ("Paseo de Gracia 43, piso 3, 08007 Barcelona", "Paseo de Gracia 43, piso 3, 08007 Barcelona"),
    ("Via Roma 15, scala B int. 5, 20121 Milano", "Via Roma 15, scala B int. 5, 20121 Milano"),
    ("Musterstraße 12a, 2. OG, 80331 München", "Musterstraße 12a, 2. OG, 80331 München"),
    ("Hauptstr. 7, Hinterhaus, 10115 Berlin", "Hauptstr. 7, Hinterhaus, 10115 Berlin"),
    ("12 rue Victor Hugo, Bât. B, Esc. 2, 75011 Paris", "12 rue Victor Hugo, Bât. B, Esc. 2, 75011 Paris"),
    # a country address without a house number, when its postal code follows
    ("lieu-dit La Croix, 24200 Sarlat", "lieu-dit La Croix, 24200 Sarlat"),
    # typed in lower case in a chat
    ("j'habite au 27 rue des lilas à pantin", "27 rue des lilas"),
    ("drop it at 9 elmwood ave please", "9 elmwood ave"),
    ("estoy en calle toledo 88 2ºb desde ayer", "calle toledo 88 2ºb"),
    ("abito in via della spiga 5 da un anno", "via della spiga 5"),
    ("wohne jetzt in der lindenstr 12a", "lindenstr 12a"),
    # post boxes
    ("P.O. Box 3317, Boise", "P.O. Box 3317"),
    ("Postfach 10 44 21", "Postfach 10 44 21"),
    ("Apartado de Correos 502", "Apartado de Correos 502"),
    ("BP 118, 69003 Lyon", "BP 118, 69003 Lyon"),
    # the unit and its number first, then the street or the sector (Nigeria, India)
    ("Plot 15, Admiralty Way, Lekki Phase 1, Lagos", "Plot 15, Admiralty Way"),
    ("House No. 24, Sector 15, Gurgaon 122001", "House No. 24, Sector 15"),
]


@pytest.mark.parametrize(("text", "value"), ADDRESSES)
def test_street_address_is_found_with_its_postal_code(text: str, value: str) -> None:
    start = text.index(value)
    assert (value, start, start + len(value)) in addresses(text), addresses(text)


NOT_ADDRESSES = [
    "il reste 3 places de parking",
    "les 2 rues sont fermées",
    "j'ai vu 3 place de la gare",
    "I have 3 apples and 2 oranges",
    "Spring 2024 collection",
    "String 5 is too long",
    "in 2019 we moved",
    "via Email 3 fois",
    "via Slack",
    "Plaza",
    "Am Montag",
    "10 Street",
    "la rue est calme",
    "Calle 5",
    "3 avenue",
    "j'ai fait la route de Paris 2 fois cette semaine",
    "la rue Victor Hugo 3 ans après",
    "i waited 3 days and 2 rue",
    "the 2 main roads are closed",
    "il 3 via email",
    "the box is 40 cm wide",
    "c'est ma résidence principale depuis 2010",
    "le hameau est calme",
    "my flat 3, with two rooms",
]


@pytest.mark.parametrize("text", NOT_ADDRESSES)
def test_no_address_in_ordinary_prose(text: str) -> None:
    assert addresses(text) == []


def test_address_with_postal_code_is_more_certain() -> None:
    scores = [s.score for s in detect_addresses("12 rue de la Paix, 75002 Paris et 3 rue Nationale")]
    assert scores == [0.9, 0.8]


def test_german_preposition_street_without_postal_code_is_a_weak_guess() -> None:
    assert [s.score for s in detect_addresses("Am Markt 3")] == [0.6]
