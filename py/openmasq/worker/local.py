"""What a send to the bundled SmolLM2-135M carries: a prompt kept short (its prompt processing runs at
tens of tokens per second in wasm), a smaller memory block, and a reply cap that fits its context."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..memory.model import MemoryStore

# llm-worker opens the model with this context (N_CTX in web/worker/llm-worker.js).
LOCAL_CONTEXT_TOKENS = 4_096
# The reply cap sent as max_tokens (llm-worker's own default): also what trim_history keeps free.
LOCAL_REPLY_TOKENS = 512
# Prompt tokens at most (system + memory + history + message). Measured in Chromium on the 2-core dev
# machine (docs/web.md, "The bundled model"): a ~330-token prompt took 33 s on one thread and 17.5 s on
# two; 1,024 tokens is then about one minute cold at worst, and a follow-up in the same conversation
# pays only for its new tokens (llama.cpp reuses the cached prefix).
LOCAL_PROMPT_TOKENS = 1_024
# SmolLM2's tokenizer gives about 3 characters per token on French and English prose (llm-worker's
# own estimate); chat/context.py counts 4. Its budgets are scaled by this ratio.
ESTIMATE_PER_REAL_TOKEN = 3 / 4
# The memory block's budget for this model: about 400 of its tokens, the profile and the cards the
# message names (the block is only there when memory has something the message mentions).
LOCAL_MEMORY_CHARS = 1_200


@dataclass(frozen=True)
class LocalShape:
    """The SendInput fields a local send overrides."""

    context_tokens: int
    max_tokens: int
    store: MemoryStore


def context_for_estimate(prompt_tokens: int = LOCAL_PROMPT_TOKENS, reply_tokens: int = LOCAL_REPLY_TOKENS) -> int:
    """The `context_tokens` to give trim_history so that the prompt it keeps, counted in its
    characters/4 estimate, stays within `prompt_tokens` of SmolLM2's real tokens."""
    return int(prompt_tokens * ESTIMATE_PER_REAL_TOKEN) + reply_tokens


def local_shape(store: MemoryStore) -> LocalShape:
    """A send to the bundled model: the short prompt budget, the reply cap, and the memory read
    through a view with the smaller block budget (the account's store itself is not changed)."""
    view = store
    if store.settings.budget_chars > LOCAL_MEMORY_CHARS:
        view = replace(store, settings=replace(store.settings, budget_chars=LOCAL_MEMORY_CHARS))
    return LocalShape(context_for_estimate(), LOCAL_REPLY_TOKENS, view)


assert LOCAL_PROMPT_TOKENS + LOCAL_REPLY_TOKENS <= LOCAL_CONTEXT_TOKENS  # the budget fits the real window
