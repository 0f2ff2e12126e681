"""The plain-text diagnostic export (catalogue 11.12, adapted): identity, provenance, status,
scope, history, links against their bars, thresholds, refusals, journal counts, dates in the
zone passed in, and the file name."""

from __future__ import annotations

from datetime import UTC, timedelta, timezone

import pytest

from openmasq.memory import ops
from openmasq.memory.cluster import edge_bar, mention_links
from openmasq.memory.export import export_file_name, memory_export_text
from openmasq.memory.model import Card, Evidence, MemoryStore, Sentence, Superseded

PARIS_SUMMER = timezone(timedelta(hours=2))
JULY_26_2026 = 1_785_067_200_000  # 2026-07-26T12:00:00Z


def people_store() -> MemoryStore:
    return MemoryStore(cards=[
        Card("val", "Valentine Roux", "personne", [Sentence("Cheffe de projet chez Orvalis.", JULY_26_2026)],
             created_at=JULY_26_2026, updated_at=JULY_26_2026),
        Card("ana", "Ana Morvan", "personne", [Sentence("Graphiste.", JULY_26_2026)],
             created_at=JULY_26_2026, updated_at=JULY_26_2026),
        Card("orv", "Orvalis", "organisation", [Sentence("Agence de design.", JULY_26_2026)],
             created_at=JULY_26_2026, updated_at=JULY_26_2026),
    ])


def export(data: MemoryStore, **kwargs: object) -> str:
    return memory_export_text(data, now=JULY_26_2026, tz=UTC, **kwargs)  # type: ignore[arg-type]


def test_identity_provenance_status_scope_dates_and_history_are_printed():
    data = MemoryStore(profile="Développeur senior.", cards=[Card(
        "k", "Karl Studio", "organisation",
        [Sentence("Agence.", JULY_26_2026, "auto-silent", Evidence("conv-9", ("m1",)))],
        aliases=["KS", "karl@studio.fr"], history=[Superseded(Sentence("Atelier.", 0), JULY_26_2026, "replaced")],
        status="proposed", scope="travail", source="auto", created_at=0, updated_at=JULY_26_2026)])
    text = export(data)
    for expected in ["[1] Karl Studio", "id : k", "catégorie : organisation · source : auto · statut : proposée · "
                     "espace : travail", "alias : KS · karl@studio.fr", "créée : 1970-01-01T00:00:00+00:00",
                     "modifiée : 2026-07-26T12:00:00+00:00", "revue : (jamais)",
                     "- Agence. (noté le 2026-07-26T12:00:00+00:00 · auto-silent · conversation conv-9)",
                     "[remplacée le 2026-07-26T12:00:00+00:00] Atelier.", "Développeur senior."]:
        assert expected in text
    user = MemoryStore(cards=[Card("u", "Ondine", "projet", source="user", status="confirmed")])
    assert "source : utilisateur · statut : confirmée · espace : global" in export(user)
    assert "faits : (vide)" in export(user)


def test_dates_follow_the_time_zone_passed_in():
    data = people_store()
    assert "Date            2026-07-26T14:00:00+02:00" in memory_export_text(data, now=JULY_26_2026, tz=PARIS_SUMMER)
    assert "Date            2026-07-26T12:00:00+00:00" in export(data)


def test_a_semantic_link_is_judged_against_the_bar_of_its_pair():
    data = people_store()
    text = export(data, edges=[("ana", "val", 0.93), ("val", "orv", 0.93)])
    assert "0.9300 ✗ Valentine Roux (val) · seuil 0.950" in text
    assert "0.9300 ✓ Orvalis (orv) · seuil 0.920" in text
    val, ana, orv = data.cards
    assert (edge_bar(val, ana), edge_bar(val, orv), edge_bar(orv, orv)) == (0.95, 0.92, 0.92)


def test_the_export_judges_links_against_the_bars_of_the_model_in_use():
    text = export(people_store(), edges=[("ana", "val", 0.953), ("val", "orv", 0.915)], bars=(0.91, 0.955),
                  merge_bar=0.93)
    assert "0.9530 ✗ Valentine Roux (val) · seuil 0.955" in text
    assert "0.9150 ✓ Orvalis (orv) · seuil 0.910" in text
    assert "cluster 0.910 · paire de personnes 0.955 · doublon 0.930" in text


def test_raw_and_kept_edge_counts():
    assert "2 bruts · 1 retenus par le graphe" in export(people_store(), edges=[("ana", "val", 0.93),
                                                                              ("val", "orv", 0.93)])


def test_mention_links_show_in_both_directions_and_are_counted_once():
    data = people_store()
    text = export(data)
    assert "Liens mention   1" in text
    assert "mention Orvalis (orv)" in text and "mention Valentine Roux (val)" in text
    assert [set(pair) for pair in mention_links(data.cards)] == [{"orv", "val"}]


def test_card_sections_come_before_the_flat_list_strongest_first():
    text = export(people_store(), edges=[("ana", "orv", 0.91), ("ana", "val", 0.97)])
    flat = text.index("== Liens sémantiques (tous")
    assert text.index("[3] Orvalis") < flat
    assert text.index("0.9700 Ana Morvan (ana) — Valentine Roux (val)") < text.index("0.9100 Ana Morvan (ana)")


def test_a_card_without_links_says_so():
    data = MemoryStore(cards=[Card("a", "Solo", "autre", [Sentence("Rien à voir.", 0)])])
    assert "liens (aucun)" in export(data, edges=[])


def test_a_dangling_id_prints_as_unknown():
    text = export(people_store(), edges=[("ana", "ghost", 0.99)])
    assert "? ghost" in text


def test_no_index_is_not_zero_edges():
    assert "index sémantique absent" in export(people_store())
    assert "0 bruts · 0 retenus par le graphe" in export(people_store(), edges=[])


def test_thresholds_and_the_real_data_warning_are_printed():
    text = export(people_store())
    assert "cluster 0.920 · paire de personnes 0.950 · doublon 0.950" in text
    assert "données RÉELLES" in text


def test_an_empty_memory_says_so_everywhere():
    text = export(MemoryStore())
    for expected in ["Fiches          0", "(aucun profil enregistré)", "(aucune fiche)", "(aucun refus)",
                     "Liens mention   0"]:
        assert expected in text
    assert text.rstrip().endswith("(vide)")


def test_refusals_and_journal_counts_are_printed():
    data = MemoryStore()
    ops.create_card(data, card_id="a", entity="Karl Studio", facts="Agence. Paie en retard.", now=JULY_26_2026)
    ops.remove_sentence(data, "a", 1, now=JULY_26_2026)
    ops.delete_card(data, "a", now=JULY_26_2026)
    data.journal_compacted = {"create": 3}
    text = export(data)
    assert "- entité « karl studio » (deleted, 2026-07-26T12:00:00+00:00)" in text
    assert "- fait « Paie en retard. » de « karl studio »" in text
    assert "create 4 · delete 1 · refuse 2 · remove 1" in text
    assert "dont 3 entrée(s) anciennes résumées en compteurs" in text


@pytest.mark.parametrize(
    "brand, tz, name",
    [("OpenMasq", UTC, "openmasq-memoire-2026-07-26.txt"),
     ("Mon Él. App", UTC, "mon-el-app-memoire-2026-07-26.txt"),
     ("", timezone(timedelta(hours=13)), "openmasq-memoire-2026-07-27.txt")],
)
def test_the_file_name(brand: str, tz: timezone, name: str):
    assert export_file_name(brand, JULY_26_2026, tz) == name
