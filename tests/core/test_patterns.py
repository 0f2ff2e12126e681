"""Deferred module-level patterns: compiled on first use or when the host has time, answering as
re.compile's would, and out of the way once compiled."""

from __future__ import annotations

import re
import types

from openmasq import patterns


def _module_with(source: str, flags: int = 0) -> types.ModuleType:
    module = types.ModuleType("deferred_probe")
    module.__dict__["deferred"] = patterns.deferred
    exec(f"PATTERN = deferred({source!r}, {int(flags)})", module.__dict__)
    return module


def test_a_deferred_pattern_answers_like_the_compiled_one():
    source, text = r"(?P<word>[a-zé]+)(\d*)", "Café42 noir, thé 7 ou rien"
    module = _module_with(source, re.IGNORECASE)
    reference = re.compile(source, re.IGNORECASE)
    lazy = module.PATTERN
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in reference.finditer(text)]
    assert lazy.search(text, 5).span() == reference.search(text, 5).span()
    assert lazy.match(text).group("word") == "Café"
    assert lazy.fullmatch("thé7").groups() == ("thé", "7")
    assert lazy.findall(text) == reference.findall(text)
    assert lazy.sub(r"<\g<word>>", text, count=2) == reference.sub(r"<\g<word>>", text, count=2)
    assert lazy.split(text, maxsplit=1) == reference.split(text, maxsplit=1)
    assert lazy.groupindex == reference.groupindex and lazy.pattern == source  # the rest, through __getattr__


def test_a_deferred_pattern_compiles_on_first_use_and_then_stands_in_its_module():
    module = _module_with(r"\bmot\b")
    assert not isinstance(module.PATTERN, re.Pattern)
    assert module.PATTERN.search("un mot ici").span() == (3, 6)
    assert isinstance(module.PATTERN, re.Pattern)  # the module's global is the compiled pattern now


def test_pending_patterns_compile_in_slices_and_a_used_one_is_not_counted():
    modules = [_module_with(rf"slice{i}\d") for i in range(5)]
    modules[0].PATTERN.search("slice03")  # used: already compiled
    left = patterns.compile_pending(2)
    compiled = [isinstance(m.PATTERN, re.Pattern) for m in modules]
    assert sum(compiled) == 3 and compiled[0]
    assert left >= 2  # this run's other modules may have patterns pending too
    assert patterns.compile_pending() == 0
    assert all(isinstance(m.PATTERN, re.Pattern) for m in modules)
