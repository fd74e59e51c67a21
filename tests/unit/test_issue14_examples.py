"""The memory engine on the examples that showed it failing on other people's words
(issue 14): updates with and without a change cue, agreeing statements kept quiet,
paraphrases merged, and a rule stated at the end of a 1 MB session."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from memory_app.store import repository as repo


def said(text: str, days_ago: float, session: str, project: str = "/home/dev/shop") -> Transcript:
    start = datetime.now(UTC) - timedelta(days=days_ago)
    turns = (
        Turn(0, "user", text, timestamp=start),
        Turn(1, "assistant", "Understood, I will keep that in mind.", timestamp=start),
    )
    return Transcript(
        source_kind="text", turns=turns, session_id=session, project=project, started_at=start
    )


def active(service: MemoryService) -> list[str]:
    with service.db.reading() as session:
        return [r.content for r in repo.list_items(session, statuses=("active",), limit=1000)]


def open_conflicts(service: MemoryService) -> int:
    return len(service.conflicts(("unresolved", "pending_user_review")))


def test_celery_then_rq_instead_is_one_supersession(service: MemoryService) -> None:
    service.memorize(
        said(
            "For this service we use Celery with a Redis broker for background jobs. "
            "Please keep all new tasks in Celery.",
            30,
            "a",
        )
    )
    result = service.memorize(said("Use RQ instead of Celery for background jobs.", 1, "b"))
    assert result.items_added and result.conflicts_found
    contents = active(service)
    assert any("RQ" in c for c in contents)
    assert not any("Celery" in c and "RQ" not in c for c in contents), contents
    assert open_conflicts(service) == 0  # "instead" says it is a change: no question asked


def test_tabs_then_we_switched_to_spaces_supersedes_and_ranks_spaces_first(
    service: MemoryService,
) -> None:
    service.memorize(said("Always use tabs for indentation in this repo.", 30, "a"))
    service.memorize(said("We switched to spaces, 4 per indent.", 1, "b"))
    contents = active(service)
    assert any("spaces" in c for c in contents) and not any("tabs" in c for c in contents)
    ranked = service.retrieve("indentation tabs spaces")
    assert ranked and "spaces" in ranked[0].record.content
    assert not any("tabs" in r.record.content for r in ranked)  # superseded: not recalled


def test_a_new_value_without_a_cue_waits_in_the_inbox(service: MemoryService) -> None:
    service.memorize(said("Use Zoom for standups, every day at 9:30.", 30, "a"))
    service.memorize(said("Use Slack huddles for standups.", 1, "b"))
    assert open_conflicts(service) == 1


def test_agreeing_pytest_statements_stay_quiet(service: MemoryService) -> None:
    service.memorize(said("No, we use pytest, never unittest.", 30, "a"))
    service.memorize(said("We use pytest and never unittest for the tests in this repo.", 1, "b"))
    assert open_conflicts(service) == 0
    assert service.conflicts() == []


def test_three_black_paraphrases_end_as_one_memory(service: MemoryService) -> None:
    for n, text in enumerate(
        (
            "We always use black with line length 100 for Python formatting.",
            "We always format Python code with black, max line length of 100.",
            "Python formatting: always black, line length 100.",
        )
    ):
        service.memorize(said(text, 30 - n, f"s{n}"))
    service.run_maintenance("nightly")
    black = [c for c in active(service) if "black" in c.lower()]
    assert len(black) == 1, black


def test_a_rule_near_the_end_of_a_1mb_session_is_found(service: MemoryService) -> None:
    chatter = (
        "I looked at the report generator again and walked through the numbers with the "
        "finance folks; they were happy with the totals after the last fix. "
    )
    turns: list[Turn] = []
    while sum(len(t.text) for t in turns) < 1_000_000:
        n = len(turns)
        turns.append(Turn(n, "user" if n % 2 == 0 else "assistant", chatter * 10))
    turns.append(Turn(len(turns), "user", "Make sure every constant name ends with '_k'."))
    turns.append(Turn(len(turns), "assistant", "Will do."))
    transcript = Transcript(source_kind="text", turns=tuple(turns), session_id="long")
    assert sum(len(t.text) for t in transcript.turns) > 1_000_000
    result = service.memorize(transcript)
    assert result.status == "success", result.reason
    assert any("'_k'" in c for c in active(service))


def test_the_offline_extractor_reads_what_a_model_would_not_be_sent() -> None:
    extractor = OfflineExtractor()
    assert extractor.max_input_chars > 1_000_000 and extractor.max_turn_chars > 100_000


def test_second_sentence_rules_and_short_imperatives_are_kept_pleasantries_are_not() -> None:
    transcript = said(
        "First, I need you to clean up the payroll module. Make sure every constant name "
        "ends with '_k'. Remember that teamwork matters. Also always add docstrings.",
        1,
        "x",
    )
    contents = [i.content for i in OfflineExtractor().extract(transcript, DEFAULT_CATEGORIES)]
    assert any("'_k'" in c for c in contents), contents
    assert any("docstrings" in c for c in contents), contents
    assert not any("teamwork" in c for c in contents), contents
    assert not any("payroll" in c for c in contents), contents
