"""`openmasq proxy --workers 4 --vault-store redis://...` under concurrent multi-turn conversations,
each request on a new connection so that turns land on any worker: every reply restored, no
cross-talk between sessions, each real value's fake the same on every worker and turn, nothing
real upstream or in Redis; a worker killed mid-run is forked again and its sessions go on; Redis
stopped mid-run refuses every session request with nothing sent upstream, and the run recovers
when it returns. Sized for a 2-core CI machine (24 sessions x 6 turns, ~150 requests, well under a
minute); bench/proxy.py runs the larger load."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from child_output import ChildOutput
from redis_server import RedisServer
from test_proxy_cli import WORKER_STARTED, _wait_ready, free_port
from test_proxy_robustness import stop
from test_proxy_upstream import ScriptedUpstream

from openmasq.proxy.app import SESSION_HEADER, WORKER_HEADER

WORKERS = 4
SESSIONS = 24
KEY_LINE = "k1 " + "ab" * 32


def person(i: int) -> tuple[str, str]:
    return f"camille.morel{i}@atelier-{i}.fr", f"+33 6 {10 + i:02d} 34 56 {20 + i:02d}"


def turn_text(i: int, turn: int) -> str:
    email, phone = person(i)
    return f"Tour {turn} : écrivez à {email} ou appelez le {phone}."


class Conversation:
    def __init__(self, index: int) -> None:
        self.index = index
        self.history: list[dict[str, str]] = []
        self.workers: set[str] = set()

    def body(self, turn: int) -> dict[str, object]:
        messages = [*self.history, {"role": "user", "content": turn_text(self.index, turn)}]
        return {"model": f"scripted-{self.index}", "messages": messages}

    def send(self, base: str, turn: int) -> httpx.Response:
        # A new connection per request: the kernel hands it to whichever worker accepts first.
        with httpx.Client(timeout=60) as client:
            return client.post(f"{base}/v1/chat/completions", json=self.body(turn),
                               headers={SESSION_HEADER: f"team-conv-{self.index}"})

    def turn(self, base: str, turn: int) -> None:
        try:
            response = self.send(base, turn)
        except httpx.TransportError:  # the worker it reached was killed: that request only is lost
            response = self.send(base, turn)
        assert response.status_code == 200, response.text
        reply = response.json()["choices"][0]["message"]["content"]
        assert reply == "Reçu : " + turn_text(self.index, turn)  # restored with this session's own vault
        self.workers.add(response.headers[WORKER_HEADER])
        self.history += [{"role": "user", "content": turn_text(self.index, turn)},
                         {"role": "assistant", "content": reply}]


@pytest.fixture
def team(tmp_path) -> Iterator[tuple[ScriptedUpstream, RedisServer, ChildOutput, str]]:
    keys = tmp_path / "vault.keys"
    keys.write_text(KEY_LINE + "\n")
    with ScriptedUpstream() as upstream, RedisServer() as server:
        port = free_port()
        process = subprocess.Popen(
            [sys.executable, "-m", "openmasq", "proxy", "--upstream", upstream.base_url, "--port", str(port),
             "--rules-only", "--workers", str(WORKERS), "--vault-store", server.url, "--vault-key-file", str(keys),
             "--shutdown-timeout", "2"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        output = None
        try:
            output = _wait_ready(process, WORKER_STARTED)
            yield upstream, server, output, base
        finally:
            stop(process)
            if output is not None:  # the proxy's log (counts, never values), for a failing run
                sys.stderr.write("\n".join(output.lines)[-4000:])


def worker_pids(base: str, want: int) -> dict[int, int]:
    """index -> pid of the workers /health reports, asking on new connections until `want` answered."""
    seen: dict[int, int] = {}
    for _ in range(400):  # bounded: each ask lands on some worker
        try:
            health = httpx.get(f"{base}/health", timeout=5).json()
        except httpx.TransportError:
            continue
        seen[health["worker"]] = health["pid"]
        if len(seen) >= want:
            break
    return seen


def run_turns(conversations: list[Conversation], base: str, turns: range) -> None:
    with ThreadPoolExecutor(8) as pool:
        for turn in turns:
            list(pool.map(Conversation.turn, conversations, [base] * len(conversations), [turn] * len(conversations)))


def test_four_workers_share_sessions_through_redis_across_a_worker_kill_and_a_redis_outage(team):
    upstream, server, output, base = team
    process = output.process
    conversations = [Conversation(i) for i in range(SESSIONS)]
    run_turns(conversations, base, range(2))

    pids = worker_pids(base, WORKERS)
    victim_index, victim = sorted(pids.items())[0]
    os.kill(victim, signal.SIGKILL)
    run_turns(conversations, base, range(2, 4))
    # The supervisor says it forked the worker again (its second "started" line), the new worker that it is up
    # (the team's fifth startup line), then it answers.
    output.wait_for(f"worker {victim_index} started (pid", count=2)
    output.wait_for(WORKER_STARTED, count=WORKERS + 1)
    assert worker_pids(base, WORKERS).get(victim_index) not in (None, victim)
    assert process.poll() is None

    server.stop(save=True)
    sent = len(upstream.received)
    with ThreadPoolExecutor(8) as pool:
        refused = list(pool.map(lambda c: c.send(base, 4), conversations))
    assert {r.status_code for r in refused} == {503}
    assert {r.json()["error"]["type"] for r in refused} == {"vault_store_error"}
    assert len(upstream.received) == sent  # nothing went upstream while Redis was down
    server.start()
    run_turns(conversations, base, range(4, 6))

    assert len({w for c in conversations for w in c.workers}) >= 2
    by_session: dict[str, list[list[str]]] = {}
    for received in upstream.received:
        doc = received.json()
        by_session.setdefault(doc["model"], []).append([m["content"] for m in doc["messages"] if m["role"] == "user"])
    assert len(by_session) == SESSIONS
    for i in range(SESSIONS):
        sent_turns = by_session[f"scripted-{i}"]
        assert len(sent_turns) >= 6
        first = sent_turns[0][0]
        assert all(turns[0] == first for turns in sent_turns)  # the same fakes on every worker and turn
    wire = upstream.wire_text()
    dump = server.dump()
    for i in range(SESSIONS):
        email, phone = person(i)
        assert email not in wire and phone not in wire
        assert email.encode() not in dump and phone.encode() not in dump
        assert f"team-conv-{i}".encode() not in dump
