"""Instructions (issue 18): the system prompt of a conversation and reusable personas (a name, instructions,
a default provider and model). REAL text: the send flow redacts it with the conversation's vault."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .conversation import Conversation, ConversationFormatError

# A system prompt or a persona's instructions: a few pages at most (they go with every request).
INSTRUCTIONS_MAX = 20_000
PERSONA_NAME_MAX = 80


@dataclass(frozen=True)
class Persona:
    id: str
    name: str  # REAL: a persona may be named after someone
    instructions: str  # REAL
    provider: str | None = None  # the provider id new conversations with it use; None: the default one
    model: str | None = None  # a model of that provider; None: the provider's own


def persona_of(conv: Conversation, personas: Sequence[Persona]) -> Persona | None:
    return next((p for p in personas if p.id == conv.persona), None) if conv.persona else None


def instructions_for(conv: Conversation, personas: Sequence[Persona], account_prompt: str = "") -> str:
    """The instructions a send of `conv` carries, REAL: the account's prompt, the persona's, then the
    conversation's own, each once, in that order (the most specific last, where models weigh it most)."""
    persona = persona_of(conv, personas)
    parts = (account_prompt, persona.instructions if persona else "", conv.system_prompt)
    return "\n\n".join(part.strip() for part in parts if part.strip())


def check_instructions(text: object, what: str = "instructions") -> str:
    if not isinstance(text, str) or len(text) > INSTRUCTIONS_MAX:
        raise ValueError(f"{what} must be a text of at most {INSTRUCTIONS_MAX} characters")
    return text


def check_persona_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > PERSONA_NAME_MAX:
        raise ValueError(f"a persona's name is a text of 1 to {PERSONA_NAME_MAX} characters")
    return name.strip()


# --- JSON ---------------------------------------------------------------------------------------


def persona_to_dict(persona: Persona) -> dict[str, Any]:
    doc: dict[str, Any] = {"id": persona.id, "name": persona.name, "instructions": persona.instructions}
    for key in ("provider", "model"):
        if getattr(persona, key) is not None:
            doc[key] = getattr(persona, key)
    return doc


def persona_from_dict(value: object) -> Persona:
    if not isinstance(value, Mapping):
        raise ConversationFormatError("a persona must be a JSON object")
    what = f"persona {value.get('id')!r}"
    texts = {key: value.get(key, "") for key in ("id", "name", "instructions")}
    options = {key: value.get(key) for key in ("provider", "model")}
    if not all(isinstance(v, str) for v in texts.values()) or not texts["id"]:
        raise ConversationFormatError(f"{what}: id, name and instructions must be texts")
    if not all(v is None or isinstance(v, str) for v in options.values()):
        raise ConversationFormatError(f"{what}: provider and model must be texts")
    return Persona(texts["id"], texts["name"], texts["instructions"], options["provider"], options["model"])
