"""Ordinary French and English prose (times, years, versions, prices, order numbers, file
names, hashes) holds no structured personal data: the rules must stay quiet on it."""

from __future__ import annotations

import pytest

from openmasq.redact.rules import detect_rules

# Kinds that are off by default and generous by design; everything else must not fire here.
GENEROUS_KINDS = {"number", "date", "amount"}

PROSE = [
    "Bonjour à tous, la réunion de demain est déplacée à 14h30 dans la salle 3. Merci de confirmer avant "
    "vendredi 12 h.",
    "Le chiffre d'affaires a progressé de 12 % en 2023, soit 1,2 M€ de plus qu'en 2022. La version 2.3.1 "
    "corrige le bug n° 4521.",
    "Commande n° 4587123 expédiée ; rendez-vous au 3e étage, porte 12, à 9 h 15.",
    "Les 3 places de parking sont réservées. Il faut passer par la rue principale puis prendre l'avenue à gauche.",
    "J'ai passé le mot de passe oublié au support : il doit contenir 12 caractères dont 2 chiffres.",
    "The quarterly report (v2.3.1) shows revenue up 12% over 2023; see section 4.2. Call me at 3 pm, room 204.",
    "Please run `pip install requests==2.31.0` then `python -m pytest -k test_api_v2 --maxfail=1`.",
    "The commit 3f2a9c1 fixed issue #1234; the SHA d41d8cd98f00b204e9800998ecf8427e is the empty file.",
    "Use the token from your dashboard, never paste your API key in chat. The password must be 12 characters.",
    "The meeting ID is 845 2931 7760 and the passcode is on the invite. Flight AF1234 departs at 10:45, gate B22.",
    "In 2019, 2 200 000 people visited; the ratio was 3:2 and the score 21-17. ISBN 978-2-07-036822-8.",
    "La TVA à 20 % s'applique ; le taux réduit de 5,5 % aussi. Le 2e arrondissement est calme.",
    "Voir le fichier rapport_final_v2.pdf et config.json dans le dossier partagé, e.g. le tableau 3.",
    "Build 10.0.19041.1 of node-14 took 3.5 s; UUID 550e8400-e29b-41d4-a716-446655440000 was logged.",
    "Il est né. Le 14 juillet, nous partons en vacances avec 3 amis et 2 valises de 23 kg.",
    "We bought 3 apples at 2:30 and walked 5 km down the road to the old mill.",
]


@pytest.mark.parametrize("text", PROSE)
def test_prose_has_no_structured_personal_data(text: str) -> None:
    found = [(s.kind, s.value) for s in detect_rules(text) if s.kind not in GENEROUS_KINDS]
    assert found == []
