"""The page-to-worker contract (openmasq.contract, site/contract_js.py): every value Python and the page
share has one source, every enum value has a label in each interface language, the languages hold the same
keys, and the drifts users saw are gone (a project coloured and named as a secret, skip reasons and journal
values shown raw, presets on another host than the engine's, RPC methods the page calls that the worker
lacks). The page's own modules run in node, from a copy of web/app beside the generated contract and the
vendored libraries the build ships."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from openmasq import contract
from openmasq.chat.codecs.models import PRESETS
from openmasq.memory.select import SkipReason
from openmasq.site import build, contract_js
from openmasq.worker import dispatch

REPO = Path(__file__).resolve().parents[2]
ENTRY_POINT = "main.js"  # spawns py-worker at import: node has no Worker
PAGE_VENDOR = ("vendor/preact-htm.mjs", "vendor/marked.esm.js", "vendor/purify.es.mjs", "vendor/comlink.mjs")


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """web/app as the build ships it: the app's modules, the generated contract, the vendored libraries (and the one
    worker module the page imports)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    root = tmp_path_factory.mktemp("site")
    shutil.copytree(REPO / "web" / "app", root / "app")
    (root / "worker").mkdir()
    # the one worker module the page imports (downloads.js, offline-settings.js)
    shutil.copyfile(REPO / "web" / "worker" / "wasm-features.js", root / "worker" / "wasm-features.js")
    (root / contract_js.SITE_PATH).write_bytes(contract_js.render())
    for source, dest in build.VENDOR_FILES.items():
        if dest in PAGE_VENDOR or dest.startswith("vendor/d3/"):
            (root / dest).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REPO / "node_modules" / source, root / dest)
    d3_force = (REPO / "node_modules" / build.D3_FORCE[0]).read_text(encoding="utf-8")
    (root / build.D3_FORCE[1]).write_text(build.D3_BARE_IMPORT.sub(r'from "./\1.mjs"', d3_force), encoding="utf-8")
    return root


def run_js(root: Path, body: str, lang: str = "fr") -> Any:
    """The JSON value `body` returns, run as a module with the page's i18n in `lang` (i18n), message.js (m),
    labels.js (l) and the contract (c) imported. node has no document: i18n's setLang writes its lang on one."""
    app = (root / "app").as_uri()
    script = (f"globalThis.document = {{ documentElement: {{}} }};"
              f"const i = await import('{app}/i18n.js'); const m = await import('{app}/components/message.js');"
              f"const l = await import('{app}/labels.js'); const c = await import('{app}/contract.js');"
              f"i.setLang({json.dumps(lang)}); const out = await (async () => {{ {body} }})();"
              f"console.log(JSON.stringify(out));")
    done = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


# ---------------------------------------------------------------- one source, complete in every language


def test_every_enum_value_has_a_label_in_every_interface_language(page: Path) -> None:
    tables = run_js(page, "return Object.fromEntries(Object.entries(i.STRINGS).map(([k, v]) => [k, Object.keys(v)]));")
    assert sorted(tables) == sorted(contract.LANGUAGES)
    missing = {lang: [f"{contract.LABEL_PREFIX[name]}{value}" for name, values in contract.ENUMS.items()
                      for value in values if f"{contract.LABEL_PREFIX[name]}{value}" not in keys]
               for lang, keys in tables.items()}
    assert missing == {lang: [] for lang in contract.LANGUAGES}


def test_the_interface_languages_hold_the_same_keys(page: Path) -> None:
    fr_only, en_only = run_js(page, "const [fr, en] = [i.STRINGS.fr, i.STRINGS.en];"
                                    "return [Object.keys(fr).filter((k) => !(k in en)),"
                                    " Object.keys(en).filter((k) => !(k in fr))];")
    assert (fr_only, en_only) == ([], [])
    assert run_js(page, "return Object.keys(i.LANGS);") == list(contract.LANGUAGES)


# A key the page builds from a value: `error.${kind}`, t(`models.${group}`) (and the contract's label prefixes).
_BUILT_KEY = re.compile(r"`([a-z][\w.]*\.)\$\{")
_QUOTED = re.compile(r"""["'`]([a-z][\w.-]*)["'`]""")


def test_every_interface_string_is_one_the_page_shows(page: Path) -> None:
    keys = run_js(page, "return Object.keys(i.STRINGS.fr);")
    sources = [p for p in (REPO / "web").rglob("*.js") if "vendor" not in p.parts and "node_modules" not in p.parts
               and not p.name.endswith("strings.js") and p.name != "i18n.js"]
    code = "\n".join(p.read_text(encoding="utf-8") for p in sources)
    quoted = set(_QUOTED.findall(code))
    built = (*_BUILT_KEY.findall(code), *contract.LABEL_PREFIX.values())
    unused = [key for key in keys if key not in quoted and not key.startswith(built)]
    assert unused == [], unused


def test_every_kind_the_engine_can_report_has_its_own_label_and_a_colour() -> None:
    assert [kind for kind in contract.KINDS if kind not in contract.KIND_LABELS] == []
    assert set(contract.kind_families().values()) <= set(contract.FAMILY_OF_CATEGORY.values())


def test_the_generated_module_exports_the_contract_and_the_rpc_methods(page: Path) -> None:
    exported = run_js(page, "return { ...c };")
    assert exported["ENUMS"]["skipReason"] == list(SkipReason.__args__)  # type: ignore[attr-defined]
    assert exported["RPC_METHODS"]["send"] == {"group": "app", "events": True}
    assert exported["RPC_METHODS"]["listCards"] == {"group": "memory", "events": False}
    assert set(exported["RPC_METHODS"]) == set(dispatch.ROUTES)
    assert run_js(page, "return Object.isFrozen(c.ENUMS.kind);") is True


def test_the_build_writes_the_contract_into_the_site() -> None:
    assert contract_js.SITE_PATH == "app/contract.js"
    assert not (REPO / "web" / contract_js.SITE_PATH).exists()  # generated only: no copy to drift
    assert contract_js.render() == contract_js.render()  # deterministic: the build hash moves only on change



def test_every_export_of_the_contract_carries_its_type_for_tsc() -> None:
    """tsc --checkJs (scripts/test) reads the page's uses of the contract against these JSDoc types."""
    lines = contract_js.render().decode().splitlines()
    exports = [i for i, line in enumerate(lines) if line.startswith("export const ")]
    assert len(exports) == len(contract_js.module_values())
    assert all(lines[i - 1].startswith("/** @type {") for i in exports)
    assert "/** @type {readonly Preset[]} */" in lines
    assert (contract_js.js_type({"a": [1, "x"], "b": None})
            == '{readonly "a": readonly (number | string)[], readonly "b": null}')
    table = {f"k{i}": {"on": True} for i in range(contract_js.RECORD_MIN_KEYS + 1)}
    assert contract_js.js_type(table) == 'Readonly<Record<string, {readonly "on": boolean}>>'

def test_every_page_module_finds_the_contract_values_it_imports(page: Path) -> None:
    """A name a module imports from the generated contract (or from another module) and nobody exports fails
    the whole page at load: each module of web/app is imported once."""
    modules = sorted(p.relative_to(page / "app").as_posix() for p in (page / "app").rglob("*.js")
                     if p.name != ENTRY_POINT and p.name != "contract.js")
    failed = run_js(page, f"const failed = {{}}; for (const name of {json.dumps(modules)}) {{"
                          f" try {{ await import(`{(page / 'app').as_uri()}/${{name}}`); }}"
                          " catch (error) { failed[name] = String(error); } } return failed;")
    assert failed == {}
    assert len(modules) > 40


# ---------------------------------------------------------------- the drifts users saw


@pytest.mark.parametrize(("lang", "label"), [("fr", "Projet"), ("en", "Project")])
def test_a_project_is_named_a_project_in_the_organisation_colour(page: Path, lang: str, label: str) -> None:
    """It showed as "Donnée sensible" in the secret colour: message.js's table had no `project`."""
    assert run_js(page, "return [m.kindLabel('project'), m.familyOf('project'), m.familyOf('org')];", lang) == [
        label, "org", "org"]


def test_a_kind_this_build_does_not_know_is_a_sensitive_value_in_the_secret_colour(page: Path) -> None:
    assert run_js(page, "return [m.kindLabel('new_kind'), m.familyOf('new_kind')];") == ["Donnée sensible", "secret"]


@pytest.mark.parametrize("lang", contract.LANGUAGES)
def test_every_skip_reason_reaches_the_caption_translated(page: Path, lang: str) -> None:
    reasons = list(SkipReason.__args__)  # type: ignore[attr-defined]
    skipped = [{"id": f"c{n}", "reason": reason} for n, reason in enumerate(reasons)]
    text = run_js(page, f"return m.captionParts({{ skipped: {json.dumps(skipped)} }}, false)"
                        ".map((p) => p.text).join(' ');", lang)
    shown = text[text.index("(") + 1:text.rindex(")")].split(", ")
    assert len(shown) == len(reasons) and [label for label in shown if label in reasons] == [], text


JOURNAL_TEXTS = "return [l.journalText(e, 'before'), l.journalText(e, 'after')];"


@pytest.mark.parametrize(("lang", "before", "after"),
                         [("fr", "Proposée", "Confirmée"), ("en", "Proposed", "Confirmed")])
def test_a_confirmation_in_the_journal_shows_the_statuses_labelled(page: Path, lang: str, before: str,
                                                                   after: str) -> None:
    """The journal showed `proposed → confirmed` as stored; the entry now names its values' enum."""
    from openmasq.memory.journal import entry_to_dict
    from openmasq.memory.model import JournalEntry

    entry = entry_to_dict(JournalEntry(at=1, action="confirm", origin="user", card_id="c1", entity="Claire",
                                       before="proposed", after="confirmed"))
    entry["values"] = contract.journal_values("confirm", None)
    shown = run_js(page, f"const e = {json.dumps(entry)}; {JOURNAL_TEXTS}", lang)
    assert shown == [before, after]


def test_the_worker_says_which_journal_entries_hold_statuses_and_categories() -> None:
    from test_worker_app import run
    from test_worker_memory import explicit_card, mem

    async def body(r: Any) -> None:
        _, card_id = await explicit_card(r)
        await mem(r).confirm_card(card_id)
        await mem(r).update_card(card_id, {"category": "organisation"})
        entries = (await mem(r).list_journal({"card_id": card_id}))["entries"]
        by_action = {e["action"]: e for e in entries}
        assert (by_action["confirm"]["before"], by_action["confirm"]["values"]) == ("proposed", "cardStatus")
        assert by_action["edit"]["values"] == "cardCategory"
        assert "values" not in by_action["create"]  # facts: free text
        card = await mem(r).get_card(card_id)
        assert [e["values"] for e in card["journal"] if e["action"] == "confirm"] == ["cardStatus"]

    run(body)


def test_free_text_in_the_journal_is_shown_as_written(page: Path) -> None:
    entry = {"action": "replace", "before": "proposed", "after": "Est ma dentiste."}
    assert contract.journal_values("replace", None) is None
    assert run_js(page, f"const e = {json.dumps(entry)}; {JOURNAL_TEXTS}") == ["proposed", "Est ma dentiste."]


def test_the_page_offers_the_engines_presets_on_the_same_addresses(page: Path) -> None:
    """The page said http://localhost:11434/v1 where the engine and the proxy say http://127.0.0.1:11434/v1."""
    offered = run_js(page, "return c.PRESETS;")
    assert {p["id"]: p["base_url"] for p in offered} == {name: PRESETS[name].base_url for name in contract.PAGE_PRESETS}
    source = (REPO / "web" / "app" / "screens" / "providers.js").read_text(encoding="utf-8")
    assert "localhost:" not in source and "api.openai.com" not in source  # no hand-written copy left


PAGE_CALL = re.compile(r"\bapi\.(\w+)\(")


def test_every_method_the_page_calls_is_one_the_worker_answers() -> None:
    """Each RPC method was listed in dispatch.py, py-worker.js and the page's calls; only the first two were
    compared. Now py-worker builds its API from the contract, and the page's calls are checked against it."""
    answered = set(dispatch.ROUTES) | set(contract_js.WORKER_METHODS)
    called: dict[str, set[str]] = {}
    for path in sorted((REPO / "web" / "app").rglob("*.js")):
        for name in PAGE_CALL.findall(path.read_text(encoding="utf-8")):
            called.setdefault(name, set()).add(path.relative_to(REPO).as_posix())
    assert {name: files for name, files in called.items() if name not in answered} == {}
    assert len(called) > 20  # the pattern does find the page's calls


def test_every_rpc_method_names_a_method_of_its_group() -> None:
    from test_worker_app import rig

    app = rig().app
    missing = [page for page, (group, name, _) in dispatch.ROUTES.items()
               if not callable(getattr(type(dispatch.GROUPS[group](app)), name, None))]
    assert missing == []


API_MEMBER = re.compile(r"^  (?:async )?(\w+)[:(]", re.MULTILINE)


def test_py_worker_writes_by_hand_only_its_own_methods_and_the_contract_lists_them() -> None:
    """py-worker refuses to start when its own methods and WORKER_METHODS differ: this says it before a
    browser does (a method added to py-worker's `api` goes in site/contract_js.py WORKER_METHODS too)."""
    source = (REPO / "web" / "worker" / "py-worker.js").read_text(encoding="utf-8")
    assert "...pythonMethods(RPC_METHODS)" in source
    api = source[source.index("const api = {"):source.index("\n};", source.index("const api = {"))]
    written = API_MEMBER.findall(api)
    assert [name for name in written if name in dispatch.ROUTES] == []
    assert sorted(written) == sorted(contract_js.WORKER_METHODS)


def test_the_worker_protocol_in_the_docs_names_every_method_as_built() -> None:
    text = (REPO / "docs" / "web.md").read_text(encoding="utf-8")
    section = text[text.index("## The worker protocol"):text.index("## Browser tests")]
    named = set(re.findall(r"`(\w+)[`(]", section))
    assert sorted(set(dispatch.ROUTES) - named) == [] and sorted(set(contract_js.WORKER_METHODS) - named) == []
    assert "pwa-plan.md" not in text


ERROR_KIND_LITERAL = re.compile(r'"type": "error", "kind": "(\w+)"|"error": \{"kind": "(\w+)"|ErrorEvent\("(\w+)"')


def test_every_error_kind_the_worker_and_the_codecs_write_is_in_the_contract() -> None:
    """A kind written in an error event and missing from ENUMS.errorKind would have no label checked."""
    sources = [*(REPO / "py" / "openmasq" / "worker").glob("*.py"), *(REPO / "py" / "openmasq" / "chat").rglob("*.py")]
    written = {kind for path in sources for match in ERROR_KIND_LITERAL.findall(path.read_text(encoding="utf-8"))
               for kind in match if kind}
    assert {"offline", "redaction", "blocked", "malformed"} <= written  # the pattern finds them
    assert sorted(written - set(contract.ENUMS["errorKind"])) == []
