"""What a backup import brings besides the conversations (issue 18, item 7; chat/backup.py reads the file),
pure: the providers it names are found again in this account by API and address (ids differ between
accounts; a key is never in a file); its personas come in unless the same one is here (same id or same
content), under a new id when theirs is taken; the account's prompt and prices fill what is empty and never
replace what the user has. Conversations are remapped to the providers and personas they end up with."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from .backup import AccountPart, ProviderRef
from .conversation import Conversation
from .instructions import Persona
from .usage import ANY_PROVIDER, Price, PriceKey


def _address(url: str) -> str:
    return url.strip().rstrip("/").lower()


def match_providers(named: Iterable[ProviderRef], here: Iterable[ProviderRef],
                    referenced: Iterable[str] = ()) -> dict[str, str | None]:
    """Each provider id of the file -> the id of this account's provider with the same API and address,
    or None when this account has no such provider. An id the file uses without naming it (a format 1
    file names none) stays itself when this account has it."""
    mine = list(here)
    by_address = {(p.api, _address(p.base_url)): p.id for p in mine}
    found: dict[str, str | None] = {p.id: by_address.get((p.api, _address(p.base_url))) for p in named}
    ids = {p.id for p in mine}
    for provider in referenced:
        found.setdefault(provider, provider if provider in ids else None)
    return found


def providers_used(conversations: Iterable[Conversation], personas: Iterable[Persona] = (),
                   prices: Iterable[PriceKey] = ()) -> set[str]:
    """The provider ids conversations (and their replies), personas and prices name."""
    used: set[str] = set()
    for conv in conversations:
        used.update(p for p in (conv.provider, *(m.provider for m in (*conv.messages, *conv.branches))) if p)
    used.update(p.provider for p in personas if p.provider)
    used.update(provider for provider, _ in prices if provider != ANY_PROVIDER)
    return used


@dataclass
class PersonaPlan:
    """`added` go in as they are; `ids` maps each persona id of the file to the id it has here."""

    added: list[Persona] = field(default_factory=list)
    same: int = 0
    ids: dict[str, str] = field(default_factory=dict)
    unmatched: int = 0  # personas whose default provider is not in this account: they keep no default model


def _content(p: Persona) -> tuple[str, str, str | None, str | None]:
    return (p.name, p.instructions, p.provider, p.model)


def plan_personas(existing: Iterable[Persona], incoming: Iterable[Persona], providers: Mapping[str, str | None],
                  new_id: Callable[[], str]) -> PersonaPlan:
    here = {p.id: p for p in existing}
    plan = PersonaPlan()
    for persona in incoming:
        original = persona.id
        provider = providers.get(persona.provider) if persona.provider else None
        if persona.provider and provider is None:
            plan.unmatched += 1
        persona = replace(persona, provider=provider, model=persona.model if provider else None)
        twin = next((p for p in here.values() if _content(p) == _content(persona)), None)
        if twin is not None:
            plan.same += 1
            plan.ids[original] = twin.id
            continue
        if persona.id in here:
            fresh = new_id()
            while fresh in here:
                fresh = new_id()
            persona = replace(persona, id=fresh)
        plan.ids[original] = persona.id
        plan.added.append(persona)
        here[persona.id] = persona
    return plan


def remap_conversation(conv: Conversation, providers: Mapping[str, str | None], personas: Mapping[str, str]) -> None:
    """The conversation speaks with the persona and answers at the provider they are here; a provider this
    account lacks leaves it to the default one (its model name meant that provider's model)."""
    if conv.provider is not None and conv.provider in providers:
        conv.provider = providers[conv.provider]
        if conv.provider is None:
            conv.model = None
    if conv.persona is not None:
        conv.persona = personas.get(conv.persona)
    for message in (*conv.messages, *conv.branches):
        if message.provider is not None and providers.get(message.provider):
            message.provider = providers[message.provider]


@dataclass
class AccountPlan:
    """What the account's part changes: the prompt when this account has none ("set"), "same", "kept" (this
    account has another: kept, the file's is not taken), or "none" (the file has none); prices not here
    are added; a price here is never changed."""

    system_prompt: str | None = None  # the prompt to set, or None
    prompt: str = "none"
    prices: dict[PriceKey, Price] = field(default_factory=dict)  # the account's prices after the import
    currency: str | None = None  # the currency to set, or None
    prices_added: int = 0
    prices_kept: int = 0  # in the file with another price here (or in another currency): not taken
    prices_unmatched: int = 0  # for a provider this account lacks


def plan_account(prompt: str, prices: Mapping[PriceKey, Price], currency: str, part: AccountPart | None,
                 providers: Mapping[str, str | None]) -> AccountPlan:
    plan = AccountPlan(prices=dict(prices))
    if part is None:
        return plan
    theirs = part.system_prompt.strip()
    if theirs:
        plan.prompt = "same" if theirs == prompt.strip() else ("set" if not prompt.strip() else "kept")
        plan.system_prompt = part.system_prompt if plan.prompt == "set" else None
    if not part.prices:
        return plan
    takes_currency = not prices and part.currency != currency
    for (provider, model), price in part.prices.items():
        here = provider if provider == ANY_PROVIDER else providers.get(provider)
        if here is None:
            plan.prices_unmatched += 1
        elif part.currency != currency and not takes_currency:
            plan.prices_kept += 1
        elif (here, model) not in plan.prices:
            plan.prices[(here, model)] = price
            plan.prices_added += 1
        elif plan.prices[(here, model)] != price:
            plan.prices_kept += 1
    plan.currency = part.currency if takes_currency and plan.prices_added else None
    return plan
