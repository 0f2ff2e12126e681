"""The plain-text diagnostic export of the memory (reference 8.4, adapted): every card with its
status, scope, sentences, history and links, the thresholds, refusals and journal counts. It
holds REAL data and says so; dates are printed in the time zone the caller passes."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, tzinfo

from .cluster import REFERENCE_BARS, Bars, Edge, edge_bar, mention_links
from .compaction import normalise_fast
from .dedupe import DUPLICATE_MIN_SIM
from .journal import action_counts
from .model import Card, MemoryStore, Sentence
from .refusals import list_refusals

_STATUS = {"proposed": "proposée", "confirmed": "confirmée", "rejected": "rejetée"}
_REASON = {"replaced": "remplacée", "evicted": "évincée", "merged": "fusion", "restored-over": "restauration"}


def iso(ms: int, tz: tzinfo) -> str:
    return datetime.fromtimestamp(ms / 1000, tz).isoformat(timespec="seconds")


def export_file_name(brand: str, now: int, tz: tzinfo) -> str:
    """`<brand-slug>-memoire-YYYY-MM-DD.txt`, the date in the given zone."""
    slug = "-".join(normalise_fast(brand).replace(".", " ").replace("@", " ").split()) or "openmasq"
    return f"{slug}-memoire-{datetime.fromtimestamp(now / 1000, tz).date().isoformat()}.txt"


def _label(card: Card | None, card_id: str) -> str:
    return f"{card.entity} ({card.id})" if card is not None else f"? {card_id}"


def _head(label: str, value: object) -> str:
    return f"{label:<15} {value}"


def _sentence_line(sentence: Sentence, tz: tzinfo) -> str:
    provenance = [f"noté le {iso(sentence.noted_at, tz)}", sentence.origin]
    if sentence.evidence is not None:
        provenance.append(f"conversation {sentence.evidence.conversation_id}")
    return f"      - {sentence.text} ({' · '.join(provenance)})"


class _Links:
    """Each card's links, indexed once: semantic edges (strongest first) and mention links."""

    def __init__(self, edges: list[Edge], mentions: list[tuple[str, str]], bars: Bars) -> None:
        self.bars = bars
        self.semantic: dict[str, list[tuple[str, float]]] = {}
        self.mention: dict[str, list[str]] = {}
        for a_id, b_id, similarity in edges:  # already strongest first
            self.semantic.setdefault(a_id, []).append((b_id, similarity))
            self.semantic.setdefault(b_id, []).append((a_id, similarity))
        for a_id, b_id in mentions:
            self.mention.setdefault(a_id, []).append(b_id)
            self.mention.setdefault(b_id, []).append(a_id)

    def lines(self, card: Card, cards: dict[str, Card]) -> list[str]:
        out: list[str] = []
        for other_id, similarity in self.semantic.get(card.id, []):
            other = cards.get(other_id)
            if other is None:
                out.append(f"      {similarity:.4f} ? {other_id}")
                continue
            bar = edge_bar(card, other, self.bars)
            mark = "✓" if similarity >= bar else "✗"
            out.append(f"      {similarity:.4f} {mark} {_label(other, other_id)} · seuil {bar:.3f}")
        out.extend(f"      mention {_label(cards.get(other_id), other_id)}"
                   for other_id in self.mention.get(card.id, []))
        return out


def _card_section(index: int, card: Card, cards: dict[str, Card], links: _Links, tz: tzinfo) -> list[str]:
    lines = [
        f"[{index}] {card.entity}",
        f"    id : {card.id}",
        f"    catégorie : {card.category} · source : {'auto' if card.source == 'auto' else 'utilisateur'}"
        f" · statut : {_STATUS[card.status]} · espace : {card.scope or 'global'}",
        f"    alias : {' · '.join(card.aliases) if card.aliases else '(aucun)'}",
        f"    créée : {iso(card.created_at, tz)} · modifiée : {iso(card.updated_at, tz)}"
        f" · revue : {iso(card.reviewed_at, tz) if card.reviewed_at is not None else '(jamais)'}",
    ]
    if card.sentences:
        lines.append("    faits :")
        lines.extend(_sentence_line(s, tz) for s in card.sentences)
    else:
        lines.append("    faits : (vide)")
    if card.history:
        lines.append("    historique :")
        lines.extend(f"      - [{_REASON[h.reason]} le {iso(h.superseded_at, tz)}] {h.sentence.text}"
                     for h in card.history)
    link_lines = links.lines(card, cards)
    if link_lines:
        lines.append("    liens :")
        lines.extend(link_lines)
    else:
        lines.append("    liens (aucun)")
    return lines


def memory_export_text(store: MemoryStore, *, now: int, tz: tzinfo, edges: Iterable[Edge] | None = None,
                       mentions: Iterable[tuple[str, str]] | None = None, bars: Bars = REFERENCE_BARS,
                       merge_bar: float = DUPLICATE_MIN_SIM) -> str:
    """The diagnostic dump. `edges` are the semantic index's (a_id, b_id, cosine), None when there
    is no index; `mentions` the mention links (computed here when not given); `bars` and `merge_bar`
    the thresholds the graph and the merge suggestions use with that index's model."""
    cards = {card.id: card for card in store.cards}
    edge_list = sorted(edges, key=lambda e: -e[2]) if edges is not None else []
    mention_list = list(mentions) if mentions is not None else mention_links(store.cards)
    kept = sum(1 for a, b, sim in edge_list
               if a in cards and b in cards and sim >= edge_bar(cards[a], cards[b], bars))
    statuses = [sum(1 for c in store.cards if c.status == s) for s in ("confirmed", "proposed", "rejected")]
    lines = [
        "OpenMasq — export de diagnostic de la Mémoire",
        "ATTENTION : ce fichier contient vos données RÉELLES (noms, faits, profil), en clair.",
        _head("Date", iso(now, tz)),
        _head("Fiches", f"{len(store.cards)} ({statuses[0]} confirmée(s) · {statuses[1]} proposée(s) · "
                        f"{statuses[2]} rejetée(s))"),
        _head("Liens sémantiques", f"{len(edge_list)} bruts · {kept} retenus par le graphe"
              if edges is not None else "index sémantique absent"),
        _head("Liens mention", len(mention_list)),
        _head("Seuils", f"cluster {bars[0]:.3f} · paire de personnes {bars[1]:.3f} · doublon {merge_bar:.3f}"),
        "",
        "== Profil ==",
        store.profile if store.profile.strip() else "(aucun profil enregistré)",
        "",
        "== Fiches ==",
    ]
    if not store.cards:
        lines.append("(aucune fiche)")
    links = _Links(edge_list, mention_list, bars)
    for index, card in enumerate(store.cards, start=1):
        lines.extend(_card_section(index, card, cards, links, tz))
        lines.append("")
    lines.append("== Liens sémantiques (tous, du plus fort au plus faible) ==")
    if edges is None:
        lines.append("(index sémantique absent)")
    elif not edge_list:
        lines.append("(aucun)")
    for a_id, b_id, similarity in edge_list:
        lines.append(f"{similarity:.4f} {_label(cards.get(a_id), a_id)} — {_label(cards.get(b_id), b_id)}")
    lines.extend(["", "== Refus =="])
    refusals = list_refusals(store)
    if not refusals:
        lines.append("(aucun refus)")
    for refusal in refusals:
        kind = f"fait « {refusal.label or refusal.fact_key} » de" if refusal.fact_key is not None else "entité"
        lines.append(f"- {kind} « {refusal.entity_key} » ({refusal.reason}, {iso(refusal.created_at, tz)})")
    lines.extend(["", "== Journal =="])
    counts = action_counts(store)
    lines.append(" · ".join(f"{action} {count}" for action, count in counts.items()) if counts else "(vide)")
    if store.journal_compacted:
        lines.append(f"dont {sum(store.journal_compacted.values())} entrée(s) anciennes résumées en compteurs")
    return "\n".join(lines) + "\n"
