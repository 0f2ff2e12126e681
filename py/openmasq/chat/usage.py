"""Tokens and estimated cost (issue 18): what providers report per reply (chat/send.py keeps it in
Message.usage), added up per conversation, priced by what the user says a model costs. A price is keyed by
provider and model: the same model id can cost differently at two providers (a gateway's margin, a local
server that costs nothing); a price with no provider ("") is that model's everywhere else."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .conversation import Conversation, Message

PER_TOKENS = 1_000_000  # prices are given per million tokens, as providers publish them
PRICE_MAX = 100_000.0  # per million tokens: far above any model's price, below a typing slip's
ANY_PROVIDER = ""  # the provider of a price that holds at every provider without one of its own

PriceKey = tuple[str, str]  # (provider id or ANY_PROVIDER, model id)


@dataclass(frozen=True)
class Price:
    """What a model costs per million tokens, in the user's currency."""

    input: float
    output: float


@dataclass(frozen=True)
class Tokens:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    replies: int = 0  # replies whose provider reported a count


def reply_tokens(message: Message) -> Tokens | None:
    """A reply's counts as the provider reported them; None when it reported none."""
    usage = message.usage
    if message.role != "assistant" or not usage:
        return None
    return Tokens(usage.get("input_tokens", 0), usage.get("output_tokens", 0), usage.get("cache_read_tokens", 0),
                  usage.get("cache_write_tokens", 0), 1)


def added(tokens: Iterable[Tokens]) -> Tokens:
    total = Tokens()
    for t in tokens:
        total = Tokens(total.input + t.input, total.output + t.output, total.cache_read + t.cache_read,
                       total.cache_write + t.cache_write, total.replies + t.replies)
    return total


def estimated_cost(tokens: Tokens, price: Price | None) -> float | None:
    """Input and output tokens at the model's price. Cached input is not priced apart: it is counted as
    the provider counts it (inside OpenAI's prompt tokens; apart from Anthropic's input tokens)."""
    if price is None:
        return None
    return (tokens.input * price.input + tokens.output * price.output) / PER_TOKENS


@dataclass(frozen=True)
class Spent:
    tokens: Tokens
    cost: float | None  # of the replies whose model has a price; None: none had one
    unpriced: int  # replies with counts whose model has no price


def price_for(prices: Mapping[PriceKey, Price], provider: str | None, model: str | None) -> Price | None:
    """The model's price at that provider, else its price at any provider, else None."""
    if not model:
        return None
    return prices.get((provider or ANY_PROVIDER, model)) or prices.get((ANY_PROVIDER, model))


def reply_price(prices: Mapping[PriceKey, Price], message: Message, conv: Conversation) -> Price | None:
    """A reply is priced at the provider that wrote it (a reply older than Message.provider: the
    conversation's provider, the best guess there is)."""
    return price_for(prices, message.provider or conv.provider, message.model)


def conversation_spent(conv: Conversation, prices: Mapping[PriceKey, Price]) -> Spent:
    """Every reply of the conversation, the other versions included (each one was paid for)."""
    counted = [(m, t) for m in (*conv.messages, *conv.branches) if (t := reply_tokens(m)) is not None]
    costs = [estimated_cost(t, reply_price(prices, m, conv)) for m, t in counted]
    known = [c for c in costs if c is not None]
    return Spent(added(t for _, t in counted), sum(known) if known else None, len(costs) - len(known))


# --- the user's prices ---------------------------------------------------------------------------


def price_from(value: object, what: str) -> Price:
    if not isinstance(value, Mapping):
        raise ValueError(f"{what}: a price is an object with input and output")
    numbers = [value.get("input"), value.get("output")]
    if not all(isinstance(n, (int, float)) and not isinstance(n, bool) and 0 <= n <= PRICE_MAX for n in numbers):
        raise ValueError(f"{what}: input and output are prices per million tokens, from 0 to {PRICE_MAX:g}")
    return Price(float(numbers[0]), float(numbers[1]))  # type: ignore[arg-type]


def _price_row(value: object, what: str) -> tuple[PriceKey, Price] | None:
    if not isinstance(value, Mapping):
        raise ValueError(f"{what}: a price is an object with model, input and output")
    model, provider = value.get("model"), value.get("provider") or ANY_PROVIDER
    if not isinstance(model, str) or not isinstance(provider, str):
        raise ValueError(f"{what}: model and provider are texts")
    if not model.strip():
        return None
    return (provider.strip(), model.strip()), price_from(value, f"the price of {model.strip()!r}")


def prices_from(value: object) -> dict[PriceKey, Price]:
    """(provider, model) -> its price, from their JSON form: a list of {provider, model, input, output}
    (provider "" or absent: any provider), or the older object of model id -> price (any provider)."""
    if isinstance(value, Mapping):
        value = [{"model": str(model), **price} if isinstance(price, Mapping) else price
                 for model, price in value.items()]
    if not isinstance(value, list):
        raise ValueError("prices are a list of {provider, model, input, output}")
    prices: dict[PriceKey, Price] = {}
    for index, item in enumerate(value, 1):
        row = _price_row(item, f"price {index}")
        if row is None:
            continue
        if row[0] in prices:
            raise ValueError(f"price {index}: {row[0][1]!r} is priced twice for the same provider")
        prices[row[0]] = row[1]
    return prices


def prices_to_list(prices: Mapping[PriceKey, Price]) -> list[dict[str, Any]]:
    return [{"provider": provider, "model": model, "input": p.input, "output": p.output}
            for (provider, model), p in sorted(prices.items())]
