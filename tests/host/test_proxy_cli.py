"""`openmasq proxy` as a user runs it: its help, and the README one-liner: an OpenAI-SDK-like
client pointed at base_url http://127.0.0.1:PORT/v1, names masked by the default level."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest
from child_output import ChildOutput
from test_proxy_upstream import ScriptedUpstream


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "openmasq", *args], capture_output=True, text=True, timeout=60)


def test_proxy_help_lists_its_options_and_the_renforce_default():
    result = run_cli("proxy", "--help")
    assert result.returncode == 0, result.stderr
    for option in ("--upstream", "--port", "--host", "--level", "--mode", "--detect-workers"):
        assert option in result.stdout
    assert "default renforce" in result.stdout
    assert "default 8787" in result.stdout


def test_a_negative_number_of_detection_helpers_is_refused():
    result = run_cli("proxy", "--upstream", "ollama", "--detect-workers", "-1")
    assert result.returncode == 2
    assert "0 or more" in result.stderr


def test_an_upstream_that_is_not_a_url_or_preset_is_refused():
    result = run_cli("proxy", "--upstream", "api.openai.com")
    assert result.returncode == 1
    assert "http(s) URL" in result.stderr


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[tuple[ScriptedUpstream, str]]:
    """The proxy as `openmasq proxy` serves it; parametrised indirectly: extra CLI arguments."""
    extra = list(getattr(request, "param", ()))
    with ScriptedUpstream() as upstream:
        port = free_port()
        process = subprocess.Popen([sys.executable, "-m", "openmasq", "proxy", "--upstream", upstream.base_url,
                                    "--port", str(port), *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            _wait_ready(process)
            assert httpx.get(f"http://127.0.0.1:{port}/health", timeout=10).status_code == 200
            yield upstream, f"http://127.0.0.1:{port}/v1"
        finally:
            process.terminate()
            process.wait(timeout=20)


# What uvicorn logs once the proxy's socket accepts (one process), and once a worker is up behind the
# supervisor's socket, which listens before the workers fork (--workers N): readiness as the child says it.
SERVING = "Uvicorn running on"
WORKER_STARTED = "Application startup complete"


def _wait_ready(process: subprocess.Popen[bytes], marker: str = SERVING) -> ChildOutput:
    """Waits for the proxy to say it serves; its output is drained from then on (and kept, for a failure)."""
    output = ChildOutput(process)
    output.wait_for(marker)
    return output


def test_an_sdk_pointed_at_the_proxy_base_url_gets_real_names_back_and_the_model_never_sees_them(served):
    upstream, base_url = served
    # What `OpenAI(base_url="http://127.0.0.1:8787/v1", api_key=...)` does under the hood.
    with httpx.Client(base_url=base_url + "/", headers={"Authorization": "Bearer sk-user"}, timeout=60) as client:
        models = client.get("models").json()
        reply = client.post("chat/completions", json={
            "model": models["data"][0]["id"],
            "messages": [{"role": "user", "content": "Dis bonjour à Marie Dupont de ma part."}],
        }).json()
    assert reply["choices"][0]["message"]["content"] == "Reçu : Dis bonjour à Marie Dupont de ma part."
    wire = upstream.wire_text()
    assert "Dis bonjour à " in wire
    assert "Marie" not in wire and "Dupont" not in wire  # names are masked by default (reference item 22)
    assert upstream.received[-1].headers["authorization"] == "Bearer sk-user"


LONG_MESSAGE = ("Bonjour, voici le dossier de Marie Dupont (marie.dupont@karl-studio.fr) pour Karl Studio SAS. "
                "Jean-Pierre Morvan signera pour Verlac Conseil, et Maître Anne Koval relira le contrat. ") * 4


@pytest.mark.parametrize("served, helpers", [(["--detect-workers", "1"], 1), (["--detect-workers", "0"], 0)],
                         indirect=["served"])
def test_with_or_without_a_detection_helper_the_model_sees_only_fakes_and_the_client_the_real_names(served, helpers):
    upstream, base_url = served
    assert httpx.get(base_url.removesuffix("/v1") + "/health", timeout=10).json()["detect_workers"] == helpers
    reply = httpx.post(f"{base_url}/chat/completions", timeout=60, json={
        "model": "scripted", "messages": [{"role": "user", "content": LONG_MESSAGE}]}).json()
    assert reply["choices"][0]["message"]["content"] == "Reçu : " + LONG_MESSAGE
    wire = upstream.wire_text()
    assert "voici le dossier de " in wire and "signera pour " in wire
    for real in ("Marie", "Dupont", "marie.dupont", "Karl Studio", "Morvan", "Verlac", "Koval"):
        assert real not in wire, f"{real!r} reached the upstream"


@pytest.mark.parametrize("served", [[]], indirect=True)
def test_the_proxy_runs_the_ner_model_by_default_and_a_name_only_the_model_knows_stays_home(served):
    upstream, base_url = served
    health = httpx.get(base_url.removesuffix("/v1") + "/health", timeout=10).json()
    assert health["ner"].startswith("model in "), health
    text = "hier soir j'ai dîné avec Xochitl Ngubane, elle bosse chez Quorvex maintenant"
    reply = httpx.post(f"{base_url}/chat/completions", timeout=60, json={
        "model": "scripted", "messages": [{"role": "user", "content": text}]}).json()
    assert reply["choices"][0]["message"]["content"] == "Reçu : " + text
    wire = upstream.wire_text()
    assert "hier soir j'ai dîné avec " in wire
    assert "Xochitl" not in wire and "Ngubane" not in wire


def test_without_its_model_the_proxy_refuses_to_start_and_says_how_to_run_on_the_rules(tmp_path):
    result = run_cli("proxy", "--upstream", "ollama", "--ner-model", str(tmp_path / "missing"))
    assert result.returncode == 1
    assert "no NER model" in result.stderr and "--rules-only" in result.stderr


@pytest.mark.parametrize("served", [["--rules-only", "--ner-model", "/nonexistent"]], indirect=True)
def test_with_rules_only_the_proxy_starts_without_a_model_and_still_masks(served):
    upstream, base_url = served
    assert httpx.get(base_url.removesuffix("/v1") + "/health", timeout=10).json()["ner"] == "rules only"
    httpx.post(f"{base_url}/chat/completions", timeout=60, json={
        "model": "scripted", "messages": [{"role": "user", "content": "Dis bonjour à Marie Dupont."}]})
    assert "Dupont" not in upstream.wire_text()
