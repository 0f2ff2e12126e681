"""The page's door to instructions and usage (issue 18, items 4 and 6): the account's personas, a
conversation's system prompt and persona, what the instructions become on the wire, and the tokens and
estimated cost of a conversation's replies (chat/instructions.py and chat/usage.py decide)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..chat.instructions import (
    Persona,
    check_instructions,
    check_persona_name,
    instructions_for,
    persona_to_dict,
)
from ..chat.send import preview_instructions
from ..chat.usage import (
    ANY_PROVIDER,
    Spent,
    Tokens,
    conversation_spent,
    estimated_cost,
    prices_from,
    prices_to_list,
    reply_price,
    reply_tokens,
)
from . import embeddings as ml
from . import records as rec
from .views import conversation_view, preview_view

if TYPE_CHECKING:
    from ..chat.conversation import Conversation
    from .app import App

CURRENCY_LENGTH = 3  # ISO 4217 codes


class InstructionsApi:
    """The methods on one App (dispatch.py calls them by INSTRUCTION_METHODS)."""

    def __init__(self, app: App) -> None:
        self.app = app

    # --- personas ---------------------------------------------------------------------------

    async def list_personas(self) -> list[dict[str, Any]]:
        return [persona_to_dict(p) for p in self.app.opened.document.personas]

    async def save_persona(self, spec: dict[str, Any]) -> dict[str, Any]:
        """Adds (no id) or changes a persona: name, instructions, and the provider and model new
        conversations with it start on (a provider id of this account; no model: the provider's own)."""
        from .app import AppError

        document = self.app.opened.document
        try:
            name = check_persona_name(spec.get("name"))
            instructions = check_instructions(spec.get("instructions", ""), "a persona's instructions")
        except ValueError as error:
            raise AppError("BadRequest", str(error)) from None
        provider = self.app._provider(str(spec["provider"])).id if spec.get("provider") else None
        model = str(spec.get("model") or "").strip() or None
        existing = next((p for p in document.personas if p.id == spec.get("id")), None) if spec.get("id") else None
        if spec.get("id") and existing is None:
            raise AppError("NotFound", f"no persona {spec.get('id')!r}")
        persona = Persona(existing.id if existing else self.app.new_id(), name, instructions, provider,
                          model if provider else None)
        if existing is None:
            document.personas.append(persona)
        else:
            document.personas[document.personas.index(existing)] = persona
        await self.app._save(rec.SETTINGS)
        return persona_to_dict(persona)

    async def delete_persona(self, persona_id: str) -> None:
        """The persona goes; conversations that spoke with it keep their own prompt and lose its instructions."""
        account = self.app.opened
        account.document.personas = [p for p in account.document.personas if p.id != persona_id]
        await self.app._save(rec.SETTINGS)
        for conv in account.document.conversations:
            if conv.persona == persona_id:
                conv.persona = None
                await self.app._save_conversation(conv)

    # --- a conversation's instructions -------------------------------------------------------

    async def set_instructions(self, conversation_id: str, patch: dict[str, Any]) -> dict[str, Any]:
        """`system_prompt` (the conversation's own instructions) and `persona` (an id, or None). Choosing a
        persona moves the conversation to the persona's provider and model, when it names one."""
        from .app import AppError

        conv = self.app._conversation(conversation_id)
        if "system_prompt" in patch:
            try:
                conv.system_prompt = check_instructions(patch["system_prompt"], "a system prompt")
            except ValueError as error:
                raise AppError("BadRequest", str(error)) from None
        if "persona" in patch:
            self._speak_as(conv, patch["persona"])
        await self.app._save_conversation(conv)
        return conversation_view(conv)

    def _speak_as(self, conv: Conversation, persona_id: object) -> None:
        from .app import AppError

        if persona_id is None or persona_id == "":
            conv.persona = None
            return
        persona = next((p for p in self.app.opened.document.personas if p.id == persona_id), None)
        if persona is None:
            raise AppError("NotFound", f"no persona {persona_id!r}")
        conv.persona = persona.id
        if persona.provider is not None and any(p.id == persona.provider for p in self.app._providers()):
            conv.provider, conv.model = persona.provider, persona.model

    async def preview_instructions(self, conversation_id: str, draft: dict[str, Any] | None = None) -> dict[str, Any]:
        """The instructions of the conversation (or of `draft`: a system prompt and persona being edited) as
        a send now would mask them, with the send's engine (options, vault, memory, the on-device model)."""
        app = self.app
        conv = app._conversation(conversation_id)
        shown = _with_draft(conv, draft or {})
        text = instructions_for(shown, app.opened.document.personas, app.opened.document.settings.system_prompt)
        return await self._masked(shown, app._provider_of(conv), text)

    async def preview_account_prompt(self, text: str) -> dict[str, Any]:
        """The account's system prompt (`text`: as being edited) as a send in a new conversation would mask
        it. Each conversation has its own vault: the fakes differ from one conversation to the next, what is
        masked does not."""
        from .app import AppError

        try:
            prompt = check_instructions(text, "the account's system prompt")
        except ValueError as error:
            raise AppError("BadRequest", str(error)) from None
        draft = self.app._draft_conversation({})
        return await self._masked(draft, self.app._provider_of(draft), prompt.strip())

    async def _masked(self, conv: Conversation, provider: Any, text: str) -> dict[str, Any]:
        from .app import AppError

        app = self.app
        inp = app._send_input(conv, "", provider, app.host.now())
        inp.system_prompt = text
        if text:
            try:
                host: Any = app  # ml.attach gave it its models and their state
                inp.instruction_spans = await ml.text_spans(host.models, host.ml_state, text, inp.options.lang)
            except ml.NerUnavailable as error:
                raise AppError("NerUnavailable", "The on-device name detector (NER model) could not run: "
                               f"nothing would be sent ({error}).") from error
        try:
            redaction = preview_instructions(inp)
        except Exception as error:  # the send would fail closed on it: nothing would leave
            raise AppError("PreviewFailed",
                           f"The masking failed ({type(error).__name__}): nothing would be sent.") from None
        if redaction is None:
            return {"text": "", "wire": "", "spans": [], "kept": [], "signature": []}
        return {**preview_view(text, redaction, [], []), "wire": redaction.text}

    # --- usage --------------------------------------------------------------------------------

    async def conversation_usage(self, conversation_id: str) -> dict[str, Any]:
        """Per reply of the active path (by message id) and for the whole conversation (every version):
        the tokens the provider reported and the estimated cost where the user priced the model."""
        settings = self.app.opened.document.settings
        conv = self.app._conversation(conversation_id)
        replies: dict[str, Any] = {}
        for message in conv.messages:
            tokens = reply_tokens(message)
            if tokens is not None:
                cost = estimated_cost(tokens, reply_price(settings.prices, message, conv))
                replies[message.id] = _tokens_view(tokens, cost, message.model)
        return {"currency": settings.currency, "replies": replies,
                "total": _spent_view(conversation_spent(conv, settings.prices))}

    async def usage_settings(self) -> dict[str, Any]:
        settings = self.app.opened.document.settings
        return {"currency": settings.currency, "prices": prices_to_list(settings.prices)}

    async def set_prices(self, prices: list[Any] | dict[str, Any], currency: str | None = None) -> dict[str, Any]:
        """Every price (a model left out has none): a list of {provider, model, input, output} per million
        tokens, provider "" for any provider (the older object of model id -> {input, output} is read too)."""
        from .app import AppError

        settings = self.app.opened.document.settings
        try:
            parsed = prices_from(prices)
        except ValueError as error:
            raise AppError("BadRequest", str(error)) from None
        known = {p.id for p in self.app._providers()}
        stray = sorted({provider for provider, _ in parsed if provider != ANY_PROVIDER and provider not in known})
        if stray:
            raise AppError("NotFound", f"no provider {stray[0]!r} in this account")
        if currency is not None:
            code = str(currency).strip().upper()
            if len(code) != CURRENCY_LENGTH or not code.isalpha() or not code.isascii():
                raise AppError("BadRequest", "a currency is a code of three letters (EUR, USD...)")
            settings.currency = code
        settings.prices = parsed
        await self.app._save(rec.SETTINGS)
        return await self.usage_settings()


def _with_draft(conv: Conversation, draft: dict[str, Any]) -> Conversation:
    from dataclasses import replace

    shown = replace(conv)
    if isinstance(draft.get("system_prompt"), str):
        shown.system_prompt = draft["system_prompt"]
    if "persona" in draft:
        shown.persona = draft["persona"] or None
    return shown


def _tokens_view(tokens: Tokens, cost: float | None, model: str | None = None) -> dict[str, Any]:
    return {"input": tokens.input, "output": tokens.output, "cache_read": tokens.cache_read,
            "cache_write": tokens.cache_write, "replies": tokens.replies, "cost": cost, "model": model}


def _spent_view(spent: Spent) -> dict[str, Any]:
    return {**_tokens_view(spent.tokens, spent.cost), "unpriced": spent.unpriced}


INSTRUCTION_METHODS: dict[str, str] = {
    "listPersonas": "list_personas",
    "savePersona": "save_persona",
    "deletePersona": "delete_persona",
    "setInstructions": "set_instructions",
    "previewInstructions": "preview_instructions",
    "previewAccountPrompt": "preview_account_prompt",
    "conversationUsage": "conversation_usage",
    "usageSettings": "usage_settings",
    "setPrices": "set_prices",
}
