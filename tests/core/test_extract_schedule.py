"""When extraction runs (reference 10, 11.14 cases 1 and 8-10): idle timer, flushes, explicit fast
path, startup sweep and one run per conversation at a time, from events and `now`."""

from __future__ import annotations

from openmasq.memory.extract.schedule import (
    EXPLICIT_DELAY_MS,
    IDLE_MS,
    STARTUP_DELAY_MS,
    ConversationSummary,
    DueRun,
    Event,
    Plan,
    plan,
    startup_candidates,
)

DAY = 24 * 3600 * 1000
NOW = 100 * DAY


def turn(conv: str, at: int) -> Event:
    return Event("turn_completed", at, conv)


def started(conv: str, at: int, mode: str = "silent", reason: str = "idle") -> Event:
    return Event("run_started", at, conv, mode, reason)  # type: ignore[arg-type]


def finished(conv: str, at: int) -> Event:
    return Event("run_finished", at, conv)


def test_startup_candidates_filter_watermark_age_and_pending_most_recent_first_capped_at_three():
    conversations = [
        ConversationSummary("r1", NOW - 4 * DAY, 4, 0),
        ConversationSummary("r2", NOW - 3 * DAY, 4, 0),
        ConversationSummary("r3", NOW - 2 * DAY, 4, 2),
        ConversationSummary("r4", NOW - 1 * DAY, 4, 0),
        ConversationSummary("done", NOW - 1 * DAY, 4, 4),
        ConversationSummary("old", NOW - 8 * DAY, 4, 0),
        ConversationSummary("busy", NOW - 1 * DAY, 4, 0, pending=True),
    ]
    assert startup_candidates(conversations, NOW) == ["r4", "r3", "r2"]


def test_a_completed_turn_runs_silently_after_two_idle_minutes_with_auto_extract():
    events = [turn("c", 0)]
    assert plan(events, IDLE_MS - 1, auto_extract=True) == Plan((), IDLE_MS)
    assert plan(events, IDLE_MS, auto_extract=True).run_now == (DueRun("c", "silent", "idle"),)


def test_activity_re_arms_the_idle_timer():
    events = [turn("c", 0), Event("activity", 60_000, "c")]
    assert plan(events, IDLE_MS, auto_extract=True) == Plan((), 60_000 + IDLE_MS)


def test_activity_without_a_completed_turn_arms_nothing():
    assert plan([Event("activity", 0, "c")], IDLE_MS, auto_extract=True) == Plan()


def test_without_auto_extract_idle_timers_never_fire():
    assert plan([turn("c", 0)], 10 * IDLE_MS, auto_extract=False) == Plan()


def test_window_blur_flushes_one_silent_run():
    events = [turn("c", 0), Event("window_blur", 5_000, "c")]
    assert plan(events, 5_000, auto_extract=True).run_now == (DueRun("c", "silent", "flush"),)
    events += [started("c", 5_000, reason="flush")]
    assert plan(events, 5_001, auto_extract=True) == Plan()


def test_blur_with_auto_extract_off_runs_nothing():
    events = [turn("c", 0), Event("window_blur", 5_000, "c")]
    assert plan(events, 5_000, auto_extract=False) == Plan()


def test_leaving_the_conversation_or_hiding_the_page_flushes_too():
    for kind in ("left_conversation", "page_hidden"):
        events = [turn("c", 0), Event(kind, 1_000, "c")]
        assert plan(events, 1_000, auto_extract=True).run_now == (DueRun("c", "silent", "flush"),)


def test_an_explicit_ask_runs_800_ms_after_the_turn_even_with_auto_extract_off():
    events = [Event("explicit_ask", 1_000, "c")]
    assert plan(events, 1_000, auto_extract=False) == Plan((), 1_000 + EXPLICIT_DELAY_MS)
    assert plan(events, 1_800, auto_extract=False).run_now == (DueRun("c", "explicit", "explicit"),)


def test_an_explicit_run_also_settles_the_idle_timer():
    events = [turn("c", 0), Event("explicit_ask", 0, "c"), started("c", 800, "explicit", "explicit"),
              finished("c", 2_000)]
    assert plan(events, IDLE_MS * 2, auto_extract=True) == Plan()


def test_one_extraction_per_conversation_at_a_time():
    events = [turn("c", 0), started("c", IDLE_MS), Event("explicit_ask", IDLE_MS + 10, "c")]
    assert plan(events, IDLE_MS + 5_000, auto_extract=True) == Plan()
    events.append(finished("c", IDLE_MS + 6_000))
    assert plan(events, IDLE_MS + 6_000, auto_extract=True).run_now == (DueRun("c", "explicit", "explicit"),)


def test_a_silent_run_does_not_settle_an_explicit_ask():
    events = [turn("c", 0), Event("explicit_ask", 100, "c"), started("c", 50), finished("c", 200)]
    assert plan(events, 1_000, auto_extract=True).run_now == (DueRun("c", "explicit", "explicit"),)


def test_two_conversations_are_scheduled_independently():
    events = [turn("a", 0), turn("b", 10_000)]
    assert plan(events, IDLE_MS, auto_extract=True) == Plan((DueRun("a", "silent", "idle"),), IDLE_MS + 10_000)


def test_the_startup_sweep_waits_45_s_and_processes_orphans_once_serially():
    conversations = [ConversationSummary("o1", NOW - DAY, 4, 0), ConversationSummary("o2", NOW - 2 * DAY, 4, 0)]
    events = [Event("app_started", NOW)]
    assert plan(events, NOW + 1, auto_extract=True, conversations=conversations) == Plan((), NOW + STARTUP_DELAY_MS)
    at = NOW + STARTUP_DELAY_MS
    assert plan(events, at, auto_extract=True, conversations=conversations).run_now == (
        DueRun("o1", "silent", "startup"),)
    events.append(started("o1", at, reason="startup"))
    assert plan(events, at + 1, auto_extract=True, conversations=conversations) == Plan()  # serially
    events.append(finished("o1", at + 2))
    done_o1 = [ConversationSummary("o1", NOW - DAY, 4, 4), conversations[1]]
    assert plan(events, at + 3, auto_extract=True, conversations=done_o1).run_now == (
        DueRun("o2", "silent", "startup"),)
    events += [started("o2", at + 3, reason="startup"), finished("o2", at + 4)]
    after = [done_o1[0], ConversationSummary("o2", NOW - 2 * DAY, 4, 4),
             ConversationSummary("new", at + 5, 6, 0)]  # touched this session: its own timer decides
    assert plan(events, at + 10, auto_extract=True, conversations=after) == Plan()


def test_the_startup_sweep_stops_at_three_conversations():
    conversations = [ConversationSummary(f"o{i}", NOW - i * 1000, 4, 0) for i in range(1, 6)]
    events = [Event("app_started", NOW)]
    at = NOW + STARTUP_DELAY_MS
    for i in range(1, 4):
        due = plan(events, at, auto_extract=True, conversations=conversations).run_now
        assert due == (DueRun(f"o{i}", "silent", "startup"),)
        events += [started(f"o{i}", at, reason="startup"), finished(f"o{i}", at)]
    assert plan(events, at, auto_extract=True, conversations=conversations) == Plan()


def test_no_startup_sweep_without_auto_extract():
    conversations = [ConversationSummary("o1", NOW - DAY, 4, 0)]
    events = [Event("app_started", NOW)]
    assert plan(events, NOW + STARTUP_DELAY_MS, auto_extract=False, conversations=conversations) == Plan()
