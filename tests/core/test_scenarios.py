"""Acceptance scenarios: multi-turn, multi-conversation stories written with openmasq.testing.
Every phase ends by checking that no real value of the store went over the wire (the wire =
every request body the scripted model received, chat and extraction alike)."""

from __future__ import annotations

import json

from openmasq.memory.normalise import normalise
from openmasq.store import document_from_json, document_to_json
from openmasq.testing import CallTool, Say, ScriptedModel, Workspace, facts, last_user_text, tool_results

INTRO = ("Bonjour ! Je me présente : je m'appelle Claire Fontaine, j'ai 38 ans et je suis directrice artistique "
         "chez Karl Studio SAS, une agence de design installée à Évreux. Je travaille en binôme avec Marc Dubreuil, "
         "notre développeur principal, sur la refonte complète du site de la mairie. Je préfère les réponses "
         "courtes et en français. Marc Dubreuil adore le vélo et vient au bureau tous les jours depuis Louviers.")


def clean(ws: Workspace) -> None:
    """The invariants of every phase: nothing real on the wire, and the script was played out (an
    extractor reply left over means an extraction the phase expected did not run)."""
    ws.assert_wire_clean()
    assert not ws.model.turns and not ws.model.extractions


def sentences(ws: Workspace, name: str) -> list[str]:
    card = ws.card(name)
    assert card is not None, f"no card for {name}"
    return [s.text for s in card.sentences]


def test_a_working_week_retention_recall_search_budget_and_update() -> None:
    ws = Workspace(ScriptedModel())
    ws.store.settings.auto_extract = True
    intro = ws.conversation("Présentation")

    # 1. Retention from a long self-introduction; the extractor hallucinates "Sophie Marchand".
    ws.model.then(Say("Ravie de vous connaître, Claire Fontaine !"))
    ws.model.extractor(facts(
        ("Claire Fontaine", "Directrice artistique chez Karl Studio SAS.", "personne"),
        ("Karl Studio SAS", "Agence de design installée à Évreux.", "organisation"),
        ("Marc Dubreuil", "Développeur principal, adore le vélo.", "personne"),
        ("Sophie Marchand", "Cheffe de projet à la mairie.", "personne"),
    ))
    turn = ws.send(intro, INTRO)
    assert turn.reply == "Ravie de vous connaître, Claire Fontaine !"
    assert turn.extraction is not None and turn.extraction.status == "noted"
    assert {c.entity for c in ws.store.cards} == {"Claire Fontaine", "Karl Studio SAS", "Marc Dubreuil"}
    assert ws.card("Sophie Marchand") is None
    clean(ws)

    # 2. Dedup: the same fact said again does not grow the card.
    ws.model.then(Say("Noté pour le vélo."))
    ws.model.extractor(facts(("Marc Dubreuil", "Développeur principal, adore le vélo.", "personne")))
    ws.send(intro, "Comme je disais, Marc Dubreuil adore vraiment le vélo, il en fait tous les week-ends "
                   "dans la vallée de l'Eure et participe même à des courses régionales chaque printemps. " * 3)
    assert sentences(ws, "Marc Dubreuil") == ["Développeur principal, adore le vélo."]
    assert [c.entity for c in ws.store.cards].count("Marc Dubreuil") == 1
    clean(ws)

    # 3. An explicit note: "retiens ..." creates a card at once, even with silent extraction's gate.
    ws.model.then(Say("Entendu."))
    ws.model.extractor(facts(("Julien Moreau", "Comptable du studio, part à la retraite en juin.", "personne")))
    turn = ws.send(intro, "Retiens que Julien Moreau, notre comptable, part à la retraite en juin.")
    assert turn.extraction is not None and turn.extraction.explicit
    assert sentences(ws, "Julien Moreau") == ["Comptable du studio, part à la retraite en juin."]
    assert intro.messages[-1].memory_noted == 1
    clean(ws)

    # 4. Direct recall in a new conversation: the card goes in as fakes, the reply comes back real.
    ws.store.settings.auto_extract = False
    work = ws.conversation("Travail")
    ws.model.then(lambda req: Say("Marc Dubreuil est votre développeur principal." if "vélo" in req.system
                                  else "Je ne sais pas."))
    turn = ws.send(work, "Que fait Marc Dubreuil déjà ?")
    assert turn.outcome.memory_error is None, turn.outcome.memory_error
    assert turn.reply == "Marc Dubreuil est votre développeur principal."
    assert turn.outcome.memory_used == [ws.card("Marc Dubreuil").id]  # type: ignore[union-attr]
    assert "vélo" in (turn.outcome.user.wire_memory or "") and "Dubreuil" not in (turn.outcome.user.wire_memory or "")
    clean(ws)

    # 5. Recall by a single distinctive token: the surname alone (the user confirmed the card:
    # a proposed card needs its full name).
    ws.confirm("Marc Dubreuil")
    other = ws.conversation("Autre")
    turn = ws.send(other, "Dubreuil vient toujours à vélo ?")
    assert turn.outcome.memory_used == [ws.card("Marc Dubreuil").id]  # type: ignore[union-attr]
    clean(ws)

    # 6. Silence on an unrelated question: no block, no skip reported.
    quiet = ws.conversation("Cuisine")
    turn = ws.send(quiet, "Quelle est la cuisson idéale d'un œuf mollet ?")
    assert turn.outcome.memory_used == [] and turn.outcome.memory_skipped == []
    assert turn.outcome.user.wire_memory is None
    clean(ws)

    # 7. The model calls memory_search with the fake it saw; the query is searched as the real name.
    search = ws.conversation("Recherche")
    ws.model.then(
        lambda req: CallTool("memory_search", {"query": last_user_text(req).split(" de ")[-1].rstrip(" ?")}),
        lambda req: Say("D'après vos notes : " + tool_results(req)[-1].splitlines()[1][:40]),
    )
    ws.settings.system_prompt = "Tu es un assistant."
    turn = ws.send(search, "Peux-tu me rappeler ce que tu sais de Claire Fontaine ?")
    assert turn.outcome.reply is not None
    use = turn.outcome.reply.tool_uses[0]
    assert json.loads(use.arguments) == {"query": "Claire Fontaine"}
    assert "Claire" not in json.loads(use.wire_arguments)["query"]
    assert "Directrice artistique" in use.wire_result and "Claire" not in use.wire_result
    assert turn.reply.startswith("D'après vos notes : Claire Fontaine")
    clean(ws)

    # 8. Budget: 40 noise cards named in one message; the block stays within 4000 characters.
    for i in range(40):
        ws.note(f"Fournisseur Numéro{i:02d}", "Livre des fournitures de bureau chaque semaine. " * 4,
                category="organisation")
    crowd = ws.conversation("Fournisseurs")
    turn = ws.send(crowd, "Fais le point : " + ", ".join(f"Fournisseur Numéro{i:02d}" for i in range(40)))
    block = turn.outcome.user.wire_memory or ""
    assert 0 < len(block) <= 4000
    assert any(s.reason == "budget" for s in turn.outcome.memory_skipped)
    clean(ws)

    # 9. An attribute update that contradicts: the deadline moves, the old date leaves the live facts.
    ws.note("Hélios", "Refonte du site de la mairie. Échéance le 15 mars.", category="projet")
    ws.model.then(Say("Je mets à jour la date."))
    ws.model.extractor(facts(("Hélios", "Échéance le 15 avril.", "projet")))
    turn = ws.send(work, "Retiens : l'échéance d'Hélios est repoussée au 15 avril.")
    assert "Hélios" not in (turn.outcome.user.wire or "")
    live = " ".join(sentences(ws, "Hélios"))
    assert "15 avril" in live and "15 mars" not in live
    card = ws.card("Hélios")
    assert card is not None and any("15 mars" in h.sentence.text for h in card.history)
    clean(ws)

    # 10. The next recall of the project carries the new date only.
    turn = ws.send(ws.conversation("Planning"), "Quelle est l'échéance d'Hélios ?")
    block = turn.outcome.user.wire_memory or ""
    assert "15 avril" in block and "15 mars" not in block
    assert "Hélios" not in (turn.outcome.user.wire or "")
    clean(ws)


def test_a_crowded_address_book_homonyms_homographs_legal_forms_deletion_and_trust() -> None:
    ws = Workspace(ScriptedModel())
    ws.note("Claire Fontaine", "Directrice artistique, aime le thé vert.", category="personne")
    ws.note("Claire Dubois", "Comptable du cabinet, parle italien.", category="personne")
    ws.note("Marc Lefèvre", "Frère aîné, architecte à Rouen.", category="personne")
    ws.note("Paul Lefèvre", "Frère cadet, luthier à Caen.", category="personne")
    ws.note("Pierre Marché", "Fournisseur de matériaux, très ponctuel.", category="personne")
    ws.note("Karl Studio SAS", "Agence de design à Évreux, client depuis 2019.", category="organisation",
            aliases=["Karl Studio"])

    # 1. Homonyms sharing a first name: only the named Claire goes in.
    conv = ws.conversation("Équipe")
    turn = ws.send(conv, "Claire Dubois a-t-elle fini la clôture des comptes ?")
    assert turn.outcome.memory_used == [ws.card("Claire Dubois").id]  # type: ignore[union-attr]
    assert "italien" in (turn.outcome.user.wire_memory or "")
    clean(ws)

    # 2. Brothers sharing a surname: each named brother is his own card, with distinct fakes.
    conv = ws.conversation("Dîner")
    turn = ws.send(conv, "Marc Lefèvre et Paul Lefèvre viennent dîner samedi.")
    used = set(turn.outcome.memory_used)
    assert used == {ws.card("Marc Lefèvre").id, ws.card("Paul Lefèvre").id}  # type: ignore[union-attr]
    block = turn.outcome.user.wire_memory or ""
    assert "architecte" in block and "luthier" in block and "Lefèvre" not in block
    assert conv.vault.substitute_of("Marc Lefèvre") != conv.vault.substitute_of("Paul Lefèvre")
    clean(ws)

    # 3. The homograph trap: "pierre" and "marché" are words here, not Pierre Marché.
    trap = ws.conversation("Chantier")
    turn = ws.send(trap, "le marché est en pierre claire, on valide le devis ?")
    assert ws.card("Pierre Marché").id not in turn.outcome.memory_used  # type: ignore[union-attr]
    assert any(s.reason == "homograph" for s in turn.outcome.memory_skipped)
    assert turn.outcome.user.wire == "le marché est en pierre claire, on valide le devis ?"
    clean(ws)

    # 4. A company name with its legal form: both spellings masked, the reply restored to the user's.
    client = ws.conversation("Client")
    ws.model.then(lambda req: Say("Karl Studio SAS est client depuis 2019." if "2019" in req.system else "?"))
    turn = ws.send(client, "Rappelle-moi depuis quand Karl Studio SAS est client ?")
    assert turn.reply == "Karl Studio SAS est client depuis 2019."
    assert "Karl" not in (turn.outcome.user.wire or "") and "Karl" not in (turn.outcome.user.wire_memory or "")
    clean(ws)

    # 5. An ambiguous search: "Claire" finds both Claires, the model sees both as fakes.
    ws.model.then(CallTool("memory_search", {"query": "Claire"}), Say("Il y a deux Claire."))
    turn = ws.send(ws.conversation("Qui ?"), "Tu te rappelles de Claire ?")
    assert turn.outcome.reply is not None
    result = turn.outcome.reply.tool_uses[0].wire_result
    assert "thé vert" in result and "italien" in result and "Claire" not in result
    clean(ws)

    # 6. A deletion that silent extraction must not undo.
    ws.delete("Paul Lefèvre")
    ws.store.settings.auto_extract = True
    ws.model.extractor(facts(("Paul Lefèvre", "Luthier à Caen, frère de Marc.", "personne")))
    family = ws.conversation("Famille")
    ws.send(family, "Paul Lefèvre m'a montré sa nouvelle guitare, il travaille toujours comme luthier à Caen "
                    "et il prépare un instrument pour un concert en juin avec son frère Marc Lefèvre. " * 3)
    assert ws.card("Paul Lefèvre") is None
    clean(ws)

    # 7. A proposed card is injected only on a direct mention (never by a lone token or a link).
    ws.model.extractor(facts(("Inès Garnier", "Nouvelle stagiaire au studio, arrive lundi.", "personne")))
    ws.send(family, "Au fait, Inès Garnier commence lundi comme stagiaire au studio, elle vient de Lyon et "
                    "elle travaillera surtout sur l'identité visuelle des clients institutionnels. " * 3)
    ines = ws.card("Inès Garnier")
    assert ines is not None and ines.status == "proposed"
    ws.store.settings.auto_extract = False
    by_token = ws.send(ws.conversation("Accueil"), "Garnier a-t-elle reçu son badge ?")
    assert ines.id not in by_token.outcome.memory_used
    direct = ws.send(ws.conversation("Accueil 2"), "Inès Garnier a-t-elle reçu son badge ?")
    assert direct.outcome.memory_used == [ines.id]
    assert "stagiaire" in (direct.outcome.user.wire_memory or "")
    clean(ws)

    # 8. Everything survives the state document, and the wire never held a real value.
    back = document_from_json(document_to_json(ws.document))
    assert {normalise(c.entity) for c in back.memory.cards} == {normalise(c.entity) for c in ws.store.cards}
    assert len(back.conversations) == len(ws.document.conversations)
    assert ws.leaked() == [] and len(ws.wire) >= 9
