"""The pair model: shipped weights, its decisions, its guards, and the fallback to the
rules when the weights are missing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks import train_pairs
from memory_app.conflicts import pair_model
from memory_app.conflicts.pair_model import Thresholds, decide
from memory_app.conflicts.restatements import judge_with_meaning
from memory_app.domain.statements import says_change_over_time, stem


@pytest.fixture
def fresh_model():
    pair_model.model.cache_clear()
    yield
    pair_model.model.cache_clear()


def test_the_shipped_weights_fit_the_features() -> None:
    fitted = pair_model.model()
    assert fitted is not None
    assert all(len(w) == len(pair_model.NAMES) for w in fitted.weights.values())
    data = json.loads(pair_model.WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert all(not name.startswith("test") for name in data["fitted_on"])


def test_the_trainer_refuses_the_frozen_test_set() -> None:
    with pytest.raises(ValueError, match="frozen"):
        train_pairs.load_pairs(["test_a.json"])


def test_features_are_one_per_name() -> None:
    row = pair_model.features("Use black.", "Use ruff format.", 0.5)
    assert len(row) == len(pair_model.NAMES)
    assert pair_model.features("Use black.", "Use ruff format.", None)[1] == row[3]


def test_probabilities_sum_to_one() -> None:
    fitted = pair_model.model()
    assert fitted is not None
    probs = pair_model.probabilities(
        pair_model.features("Use tabs.", "Use spaces.", 0.7), fitted.weights
    )
    assert set(probs) == set(pair_model.ANSWERS)
    assert sum(probs.values()) == pytest.approx(1.0)


THRESHOLDS = Thresholds(conflict=0.7, rules_conflict=0.6, same=0.6)


@pytest.mark.parametrize(
    ("probs", "rules", "reversed_", "differs", "answer"),
    [
        ({"same": 0.1, "conflict": 0.8, "compatible": 0.1}, False, False, False, "conflict"),
        ({"same": 0.3, "conflict": 0.65, "compatible": 0.05}, True, False, False, "conflict"),
        ({"same": 0.3, "conflict": 0.65, "compatible": 0.05}, False, False, False, "compatible"),
        # A full reversal conflicts however alike the wording.
        ({"same": 0.95, "conflict": 0.05, "compatible": 0.0}, True, True, True, "conflict"),
        ({"same": 0.9, "conflict": 0.05, "compatible": 0.05}, False, False, False, "same"),
        # A value that differs is never merged, whatever the similarity.
        ({"same": 0.9, "conflict": 0.05, "compatible": 0.05}, False, False, True, "compatible"),
    ],
)
def test_decide(probs, rules, reversed_, differs, answer) -> None:
    got = decide(
        probs,
        THRESHOLDS,
        rules_conflict=rules,
        reversed_stances=reversed_,
        value_differs=differs,
    )
    assert got == answer


@pytest.mark.parametrize(
    ("older", "newer", "differs"),
    [
        ("Line length is 100.", "Line length is 88.", True),
        ("Keep functions under 50 lines.", "A function shouldn't grow beyond fifty lines.", False),
        (
            "The chatbot is deployed to Cloud Run.",
            "We moved the chatbot from Cloud Run to GKE.",
            True,
        ),
        ("Use moment.js for dates.", "We're dropping moment.js; date-fns from now on.", True),
        ("CI runs the unit tests on every push.", "Integration tests run nightly in CI.", True),
        (
            "We always use black with line length 100 for Python formatting.",
            "Python formatting: always black, line length 100.",
            False,
        ),
        # One number written two ways is one value.
        ("Retry the payment call three times.", "The payment call gets 3 retries.", False),
        ("Retry the payment call three times.", "Retry the payment call five times.", True),
        # A subject moved into the object is the same rule; two unrelated subjects are not.
        (
            "The audit log is stored in MongoDB.",
            "MongoDB is the store behind the audit log.",
            False,
        ),
        ("Branch names start with the ticket key.", "Commit messages end with the key.", True),
        # No value on either side: two meaningful words said by both anchor one rule.
        (
            "Hotfixes are branched from the latest release tag.",
            "Branch off the most recent release tag when you do a hotfix.",
            False,
        ),
        # A quantity both name is a bound however it is said, not a value ruled out.
        ("Cap retries at most at 5 per job.", "A job is never retried more than 5 times.", False),
        ("Cap retries at most at 5 per job.", "A job is never retried more than 8 times.", True),
        # A short form of what the other spells out is one value; another name is not.
        ("Never use var in JavaScript files.", "Never use var in our JS files.", False),
        ("Never use var in JavaScript files.", "Never use var in our Go files.", True),
        ("Pods in k8s get resource limits.", "Every Kubernetes pod gets resource limits.", False),
        ("Pods in k8s get resource limits.", "Every Nomad job gets resource limits.", True),
        # Initials of plain words ("the service") abbreviate nothing.
        ("Write new scripts in TS.", "Write the service scripts in Go.", True),
    ],
)
def test_differs_in_value(older: str, newer: str, differs: bool) -> None:
    assert pair_model.differs_in_value(older, newer) is differs


def test_numbers_are_read_from_digits_and_words() -> None:
    assert pair_model.numbers("at most fifty lines, 512MB, 3.5 s") == {50.0, 512.0, 3.5}
    # A digit inside a name is not a quantity: "N+1 queries", "base64".
    assert pair_model.numbers("the N+1 bug in base64 output") == frozenset()


@pytest.mark.parametrize(
    ("older", "newer", "relation"),
    [
        # Other wording, one slot, a new value said as a change.
        (
            "The session timeout is 30 minutes.",
            "Sessions now expire after 15 minutes of inactivity.",
            "update",
        ),
        # Parallel rules about different things are not one slot.
        ("Unit tests use Vitest.", "End-to-end tests are written in Playwright.", "compatible"),
        (
            "Python code is wrapped at 88 characters.",
            "TypeScript code is wrapped at 120.",
            "compatible",
        ),
        (
            "I prefer tabs over spaces for indentation.",
            "I prefer spaces over tabs for indentation.",
            "contradiction",
        ),
        # Two rules that share nothing but the shape "use X, never Y" are compatible.
        (
            "Use async/await instead of .then() chains.",
            "Use pnpm, never npm, for installs.",
            "compatible",
        ),
        # The newer rejects the older's value and names another: a contradiction.
        (
            "We always indent with tabs in this repo.",
            "I want every file indented with spaces, never tabs.",
            "contradiction",
        ),
    ],
)
def test_judge_with_meaning(older: str, newer: str, relation: str) -> None:
    assert judge_with_meaning(older, newer).relation == relation


def test_missing_or_foreign_weights_fall_back_to_the_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_model
) -> None:
    for text in ("not json", json.dumps({"features": ["other"], "weights": {}})):
        path = tmp_path / "weights.json"
        path.write_text(text, encoding="utf-8")
        monkeypatch.setattr(pair_model, "WEIGHTS_FILE", path)
        pair_model.model.cache_clear()
        assert pair_model.model() is None
        assert pair_model.read_pair("Use tabs.", "Use spaces.", 0.7, rules_conflict=True) is None
        # The rules alone still judge.
        assert judge_with_meaning("Always use tabs.", "Never use tabs.").contradicts
    monkeypatch.setattr(pair_model, "WEIGHTS_FILE", tmp_path / "missing.json")
    pair_model.model.cache_clear()
    assert pair_model.model() is None


def test_thresholds_are_chosen_by_the_targets_on_held_out_pairs() -> None:
    readings = [
        train_pairs.Held(
            {"relation": "compatible", "differs_in_value": True},
            {"same": 0.1, "conflict": 0.6, "compatible": 0.3},
            rules_conflict=False,
            reversed_stances=False,
            value_differs=True,
            parallel_rules=False,
            change_cue=False,
        ),
        train_pairs.Held(
            {"relation": "update"},
            {"same": 0.0, "conflict": 0.9, "compatible": 0.1},
            rules_conflict=True,
            reversed_stances=False,
            value_differs=True,
            parallel_rules=False,
            change_cue=False,
        ),
    ]
    _, figures = train_pairs.choose(readings)
    assert figures["false_conflict_rate"] == 0  # 0.6 would be a false conflict
    assert figures["conflict_recall"] == 1


def test_a_reversal_the_model_reads_as_agreement_is_no_conflict() -> None:
    # "At most 1000 steps" / "no more than 1000 steps": the rules read a reversal, the
    # model an agreement. Each side rejecting what the other endorses always conflicts.
    agreeing = {"same": 0.8, "conflict": 0.1, "compatible": 0.1}
    facts = {"rules_conflict": False, "value_differs": False}
    thresholds = Thresholds(conflict=0.9, rules_conflict=0.8, same=0.9, reversed_conflict=0.4)
    assert decide(agreeing, thresholds, reversed_stances=True, **facts) == "compatible"
    assert decide(agreeing, Thresholds(), reversed_stances=True, **facts) == "conflict"
    swapped = decide(agreeing, thresholds, reversed_stances=True, swapped_stances=True, **facts)
    assert swapped == "conflict"
    assert pair_model.swaps(
        "I prefer tabs over spaces for indentation.", "I prefer spaces over tabs for indentation."
    )
    assert not pair_model.swaps(
        "Keep the warmup to at most 1000 steps.", "The warmup should be no more than 1000 steps."
    )


def test_the_reversal_threshold_is_chosen_on_held_out_pairs() -> None:
    def held(relation: str, conflict: float) -> train_pairs.Held:
        return train_pairs.Held(
            {"relation": relation},
            {"same": 1.0 - conflict, "conflict": conflict, "compatible": 0.0},
            rules_conflict=False,
            reversed_stances=True,
            value_differs=False,
            parallel_rules=False,
            change_cue=False,
        )

    # Two reversals: a paraphrase read at 0.2 and a contradiction read at 0.5. Calling
    # every reversal a conflict would flag the paraphrase.
    thresholds, figures = train_pairs.choose([held("paraphrase", 0.2), held("contradiction", 0.5)])
    assert 0.2 < thresholds.reversed_conflict <= 0.5
    assert figures["conflict_recall"] == 1
    assert figures["false_conflict_rate"] == 0


def test_the_issues_examples_bind_the_thresholds_before_held_out_recall() -> None:
    def held(relation: str, conflict: float) -> train_pairs.Held:
        return train_pairs.Held(
            {"relation": relation},
            {"same": 0.0, "conflict": conflict, "compatible": 1.0 - conflict},
            rules_conflict=False,
            reversed_stances=False,
            value_differs=True,
            parallel_rules=False,
            change_cue=False,
        )

    found = [held("update", 0.65)]
    free, _ = train_pairs.choose(found)
    assert free.conflict <= 0.65
    # An agreeing example of the issue read at 0.7 must stay quiet: the update is lost.
    bound, figures = train_pairs.choose(found, [held("compatible", 0.7)])
    assert bound.conflict > 0.7
    assert figures["conflict_recall"] == 0


def test_the_shipped_thresholds_read_the_issues_examples_right() -> None:
    fitted = pair_model.model()
    assert fitted is not None
    table = [list(row) for row in zip(*fitted.weights.values(), strict=True)]
    weights = np.array(table)
    for reading in train_pairs.required_readings(weights):
        answer = decide(
            reading.probs,
            fitted.thresholds,
            rules_conflict=reading.rules_conflict,
            reversed_stances=reading.reversed_stances,
            value_differs=reading.value_differs,
            parallel_rules=reading.parallel_rules,
            change_cue=reading.change_cue,
            swapped_stances=reading.swapped_stances,
        )
        wanted = reading.pair["relation"] == "update"
        assert (answer == "conflict") is wanted, reading.pair


def test_the_merge_threshold_keeps_a_margin_from_any_false_merge() -> None:
    def held(relation: str, same: float) -> train_pairs.Held:
        return train_pairs.Held(
            {"relation": relation},
            {"same": same, "conflict": 0.0, "compatible": 1.0 - same},
            rules_conflict=False,
            reversed_stances=False,
            value_differs=False,
            parallel_rules=False,
            change_cue=False,
        )

    # Merging the paraphrase at 0.72 would put the threshold within the margin of two
    # different rules read at 0.6: the choice gives up that merge rather than risk one.
    thresholds, figures = train_pairs.choose(
        [held("paraphrase", 0.72), held("different rules", 0.6)]
    )
    assert thresholds.same - train_pairs.MERGE_MARGIN > 0.6
    assert figures["false_merges"] == 0
    assert figures["paraphrase_recall"] == 0


@pytest.mark.parametrize(
    ("older", "newer", "is_parallel"),
    [
        ("Unit tests use Vitest.", "End-to-end tests use Playwright.", True),
        ("Timestamp columns end with _at.", "Boolean columns start with is_.", True),
        # One slot narrowed, or a plain qualifier: the same thing.
        ("Component files end in .view.tsx.", "React component files use .ui.tsx.", False),
        ("Staging models are prefixed stg_.", "New staging models are prefixed base_.", False),
        ("We use Vitest.", "We use Playwright.", False),
        # The scope said first: two services, or one service with two values.
        (
            "In the notifications service, env vars are prefixed NOTIF_.",
            "In the billing service, env vars are prefixed BILL_.",
            True,
        ),
        (
            "In the billing service, env vars are prefixed BILLING_.",
            "In the billing service, env vars are prefixed BILL_.",
            False,
        ),
        # Two scopes with no word in common, or one scope and two subjects after it.
        (
            "In the bootloader, the watchdog timeout is 2 seconds.",
            "In the application firmware, the watchdog timeout is 500 milliseconds.",
            True,
        ),
        (
            "In the Rust CLI, the sync command retries network errors 3 times.",
            "In the Rust CLI, the upload command retries network errors 5 times.",
            True,
        ),
        ("In this repo, use tabs.", "In our repo we use spaces now.", False),
        ("In the billing service, log with zap.", "In billing, log with slog.", False),
        # A label names the kind of thing too; one label, or two plain ones, is one rule.
        (
            "Payments worker: retry a failed charge 3 times.",
            "Email worker: retry a failed send 8 times.",
            True,
        ),
        ("Go formatting: gofmt.", "Go formatting: gofumpt from now on.", False),
        ("Reminder: indent with tabs.", "Note: indent with spaces.", False),
    ],
)
def test_parallel_subjects(older: str, newer: str, is_parallel: bool) -> None:
    assert pair_model.parallel(older, newer) is is_parallel


def test_parallel_rules_never_conflict_and_a_reversal_always_does() -> None:
    probs = {"same": 0.0, "conflict": 0.99, "compatible": 0.01}
    kwargs = {"rules_conflict": True, "value_differs": True}
    for reversed_ in (False, True):
        answer = decide(
            probs, Thresholds(), reversed_stances=reversed_, parallel_rules=True, **kwargs
        )
        assert answer == "compatible"
    quiet = {"same": 0.0, "conflict": 0.01, "compatible": 0.99}
    answer = decide(
        quiet, Thresholds(), reversed_stances=True, rules_conflict=False, value_differs=True
    )
    assert answer == "conflict"


@pytest.mark.parametrize(
    ("older", "newer", "flipped"),
    [
        ("Squash commits when merging a PR.", "Never squash on merge; keep every commit.", 1),
        ("Log request bodies at debug level.", "Request bodies must never be logged.", 1),
        # Both reject the same thing: agreement, nothing flipped.
        ("No, we use pytest, never unittest.", "We use pytest and never unittest here.", 0),
        (
            "Prefer composition and avoid inheritance for the UI widgets.",
            "UI widgets are built by composition; don't reach for inheritance.",
            0,
        ),
    ],
)
def test_words_said_for_and_against(older: str, newer: str, flipped: int) -> None:
    assert pair_model.flipped_words(older, newer) == flipped


def test_the_trainer_learns_from_the_dialogues_own_rules() -> None:
    pairs = train_pairs.dialogue_pairs(["dev_a.json"])
    relations = {p["relation"] for p in pairs}
    assert relations == {"update", "different rules"}
    # A chain of updates (m1 → m2 → m3) is one slot: m1 and m3 are an update too.
    assert sum(p["relation"] == "update" for p in pairs) >= 24
    with pytest.raises(ValueError, match="frozen"):
        train_pairs.dialogue_pairs(["test_b.json"])


@pytest.mark.parametrize(
    ("older", "newer", "valued"),
    [
        # The value changes in place, between words both say.
        ("Our DTO names end with Payload.", "Our DTO names end with Dto.", 1),
        ("A PR is at most 400 changed lines.", "We cap PRs at 250 changed lines.", 1),
        ("Every PR needs two approvals.", "Every PR needs one approval.", 1),
        # A rewording moves the words around: nothing is put in another's place.
        ("Use the tracing crate for logging.", "Rust services emit their logs through tracing.", 0),
        ("Indent with tabs.", "Indent with tabs.", 0),
    ],
)
def test_substitutions(older: str, newer: str, valued: int) -> None:
    found, aligned = pair_model.substitutions(older, newer)
    assert found == valued
    assert 0.0 <= aligned <= 1.0
    if older == newer:
        assert aligned == 1.0


@pytest.mark.parametrize(
    ("older", "newer", "reversed_"),
    [
        # The newer says it changes a thing the older gave another value.
        (
            "Global state lives in Redux Toolkit.",
            "We switched global state over to Zustand.",
            True,
        ),
        ("We're on Java 17 for all services.", "We're moving the services to Java 21.", True),
        # No change said, or no word both say next to the values: not by this rule.
        ("Global state lives in Redux Toolkit.", "Global state lives in Zustand.", False),
        ("Global state lives in Redux Toolkit.", "From now on, deploy with Helm.", False),
    ],
)
def test_a_change_said_of_one_thing_reverses_it(older: str, newer: str, reversed_: bool) -> None:
    assert pair_model.reverses(older, newer) is reversed_


@pytest.mark.parametrize(
    ("older", "newer", "differs"),
    [
        # One value written two ways: split or joined, a time in 12 or 24 hours, a
        # member named with or without its owner.
        ("The cache holds at most 256 MB.", "Cap the cache at 256MB.", False),
        ("The nightly backup starts at 11pm.", "Nightly backups start at 23:00.", False),
        ("The nightly backup starts at 11pm.", "Nightly backups start at 22:00.", True),
        ("Close every file with Close().", "Always call f.Close() on files you open.", False),
        # A Latin abbreviation names nothing: "e.g." is no value of its own.
        (
            "Release branches are named after the version.",
            "Name release branches after the version, e.g. release-2.3.",
            False,
        ),
        # A member of a value is not the value ("Payload" / "PayloadDto").
        ("Response classes end with Payload.", "Response classes end with PayloadDto.", True),
        # One quantity in two units, or with its number in words; other quantities differ.
        (
            "Reconnects use exponential backoff starting at 500 ms, capped at 30 s.",
            "Backoff for reconnecting: 0.5 seconds initial delay and a 30-second ceiling.",
            False,
        ),
        (
            "Audit logs shall be retained for a minimum of 400 days.",
            "We keep the audit trail for at least four hundred days.",
            False,
        ),
        ("Outbound calls time out after 2 minutes.", "Outbound calls: a 120 s timeout.", False),
        ("Timeout is 30 seconds.", "Timeout is 30 minutes.", True),
        ("Keep logs 400 days.", "Keep logs four hundred weeks.", True),
        # A quantity in words: "half an hour", "half past ten"; "once per" is how often.
        ("Carts expire after 30 minutes.", "Cart expiry: half an hour.", False),
        ("Retros are at 10:30.", "Our retro: half past ten.", False),
        ("Snapshot every 200 steps.", "Take a snapshot once per 200 steps.", False),
        # One more quantity said alongside is a detail, not a value replaced.
        ("Retry 3 times.", "Retry 3 times, 2 seconds apart.", False),
        ("Retry 3 times.", "Retry 5 times, 2 seconds apart.", True),
    ],
)
def test_one_value_however_it_is_written(older: str, newer: str, differs: bool) -> None:
    assert pair_model.differs_in_value(older, newer) is differs


def test_times_of_day_are_one_quantity() -> None:
    assert pair_model.numbers("deploys at 4pm") == pair_model.numbers("deploys at 16:00")
    assert pair_model.numbers("at 9:30 a.m.") == {570.0}


def test_a_time_of_day_said_in_words_is_the_same_time() -> None:
    assert pair_model.numbers("before ten in the morning") == pair_model.numbers("by 10am")
    assert pair_model.numbers("at seven in the evening") == pair_model.numbers("at 19:00")
    assert pair_model.numbers("at noon") == pair_model.numbers("at 12:00")
    assert pair_model.numbers("in the morning") == frozenset()


@pytest.mark.parametrize(
    ("text", "other", "left"),
    [
        ("Deploys go through Argo CD only.", "prod changes = argocd sync", set()),
        ("Standups are on Microsoft Teams.", "Our standup: Teams.", set()),
        ("Standups are on Google Meet.", "Standups are on Google Chat.", {"meet"}),
        ("Use Argo CD.", "Use Flux CD.", {"argo"}),
    ],
)
def test_one_name_written_in_parts_or_with_its_maker(text: str, other: str, left: set) -> None:
    assert pair_model.uncovered_values(text, other) == left


def test_lengths_of_time_are_one_quantity_in_any_unit() -> None:
    assert pair_model.numbers("starting at 500 ms") == pair_model.numbers("0.5 seconds") == {0.5}
    assert pair_model.numbers("after 2 minutes") == pair_model.numbers("a 120 s timeout")
    assert pair_model.numbers("for four hundred days") == pair_model.numbers("for 400 days")
    assert pair_model.numbers("the ones we use") == frozenset()  # "ones" is no "one s"


@pytest.mark.parametrize(
    ("older", "newer", "unrelated"),
    [
        ("Outbound calls time out after 5 seconds.", "Cron jobs time out after 20 minutes.", True),
        # The other side names the subject: one rule, however it is worded.
        ("Invoices are stored in S3.", "S3 is where the invoices live.", False),
        # An imperative or a condition has no subject to compare.
        ("Wrap every handler in a recover.", "Database queries time out after 2s.", False),
        ("When a job fails, page the on-call.", "Failed jobs page the on-call person.", False),
        # One word of a subject said by the other side is enough to relate them, a
        # part of a joined word included.
        (
            "Logs go out over the serial port at 9600 baud.",
            "The debug serial line runs at 57600.",
            False,
        ),
        (
            "Hosting is on Render; main auto-deploys.",
            "Staging deploys go through Fly.io now.",
            False,
        ),
        ("Parser headers use include guards.", "Guards are pragma once in new code.", False),
        # A subject never runs past the end of its sentence.
        ("Every database client gets 10 connections.", "Pool size: 20. The proxy caps it.", False),
    ],
)
def test_unrelated_subjects(older: str, newer: str, unrelated: bool) -> None:
    assert pair_model.unrelated_subjects(older, newer) is unrelated


def test_a_ban_outside_an_exception_agrees_with_only_there() -> None:
    """ "never X outside tests" and "X only in tests" say the same: no word flips."""
    assert (
        pair_model.flipped_words(
            "Never use print() outside of the debug scripts.",
            "print() is allowed only in the debug scripts.",
        )
        == 0
    )
    assert (
        pair_model.flipped_words(
            "Use print() in the debug scripts.", "Never use print() in the debug scripts."
        )
        >= 1
    )


def test_a_thing_moved_to_a_lowercase_name_updates_where_it_lived() -> None:
    older, newer = "our runbooks live in notion", "we moved the runbooks to confluence"
    assert pair_model.reverses(older, newer)
    assert judge_with_meaning(older, newer).relation == "update"


def test_two_statements_that_each_rule_out_another_thing_differ() -> None:
    assert pair_model.differs_in_value(
        "Config goes in environment variables, not YAML files.",
        "Feature flags use environment variables, not LaunchDarkly.",
    )


def test_x_replaces_y_rejects_y() -> None:
    assert pair_model.reverses(
        "Use Webpack to bundle the front end; no Parcel.",
        "Vite replaces Webpack for the front-end bundle.",
    )


def test_a_preference_the_older_rule_shared_is_no_change() -> None:
    """ "rather than X" after "never X" restates the ban; "instead of" a value the older
    chose is a change, never a repeat to fold away."""
    older = "Never use the wall clock; use the Clock port."
    assert not pair_model.differs_in_value(
        older, "Time comes from the Clock port rather than the wall clock."
    )
    assert pair_model.differs_in_value(
        "Time comes from the Clock port.",
        "Time comes from the wall clock instead of the Clock port.",
    )


def test_the_head_of_a_subject_is_the_noun_before_its_preposition() -> None:
    assert pair_model.parallel(
        "Internal RPCs time out after 1 second.",
        "RPCs to payment partners time out after 8 seconds.",
    )
    assert pair_model.subject("Calls to the ledger are retried twice.") == {"ledger", "call"}


def test_the_main_verb_of_a_fact_shaped_rule() -> None:
    assert pair_model.main_verb("Rust crates log with tracing.") == "log"
    assert pair_model.main_verb("Invoices are rendered with Typst.") == "render"
    assert pair_model.main_verb("Base images are debian-slim.") == "be"
    assert pair_model.main_verb("We use tracing for logs.") is None


@pytest.mark.parametrize(
    ("older", "newer", "agree"),
    [
        # A ban of something else follows from "only": the two agree.
        ("Only the render thread touches the GPU context.", "Never call GL from a worker.", True),
        ("Use the new config loader only.", "Don't read the old settings.ini directly.", True),
        ("Refunds go only through the ledger API.", "Never write refunds to the DB by hand.", True),
        # The ban names what "only" allows, or the banning side names another choice.
        ("Only use Poetry.", "Never use Poetry.", False),
        ("Releases happen only on Mondays.", "Never release on Mondays.", False),
        ("Only rebase-merge branches.", "Never rebase branches.", False),
        ("Only Redis for caching.", "Do not cache in Redis, use Memcached.", False),
    ],
)
def test_an_only_beside_a_ban_of_something_else_agrees(older: str, newer: str, agree: bool) -> None:
    assert pair_model.allows_only_another(older, newer) is agree
    assert pair_model.allows_only_another(newer, older) is agree


def test_an_only_beside_a_ban_never_conflicts_whatever_the_model_says() -> None:
    sure = {"same": 0.0, "conflict": 1.0, "compatible": 0.0}
    common = {"rules_conflict": True, "reversed_stances": True, "value_differs": True}
    thresholds = pair_model.Thresholds()
    assert pair_model.decide(sure, thresholds, **common) == "conflict"
    assert pair_model.decide(sure, thresholds, **common, only_and_ban=True) == "compatible"


def test_how_often_is_one_quantity_however_it_is_said() -> None:
    assert pair_model.numbers("Secrets are rotated quarterly.") == pair_model.numbers(
        "Rotate secrets every 3 months."
    )
    assert pair_model.numbers("Backups run nightly.") == pair_model.numbers(
        "Backups run every night."
    )
    assert pair_model.differs_in_value("Dependencies are bumped weekly.", "Bump deps every month.")


@pytest.mark.parametrize(
    ("older", "newer", "opposite"),
    [
        ("Import lists use trailing commas.", "Import lists use leading commas.", True),
        ("Env var names are SCREAMING_CASE.", "Env var names are snake_case.", True),
        ("Config keys are kebab-case.", "Config keys use camelCase.", True),
        # Both ends named on one side, or one end on both: no value changed.
        ("Indent with spaces, never tabs.", "Indentation: spaces.", False),
        ("Config keys are kebab-case.", "Write config keys in kebab case.", False),
    ],
)
def test_opposite_ends_of_one_choice(older: str, newer: str, opposite: bool) -> None:
    assert pair_model.opposite_ends(older, newer) is opposite
    if opposite:
        assert pair_model.differs_in_value(older, newer)


def test_a_verb_both_say_is_no_shared_thing() -> None:
    """ "run standardrb" / "jobs run on solid_queue": "run" names no slot."""
    assert not pair_model.swapped_near_shared_word(
        "Lint with rubocop; run rubocop -a.", "Workers run on GoodJob from now on."
    )
    assert pair_model.swapped_near_shared_word(
        "Invoices live in Xero.", "We moved the invoices to QuickBooks."
    )


def test_the_subject_follows_a_label_or_any_instruction_verb() -> None:
    assert pair_model.subject("Mobile app: crash reports go to Sentry.") == {"crash", "report"}
    assert pair_model.subject("Liveness probes check the process.") == {stem("liveness"), "probe"}
    assert pair_model.subject("The worker retries failed jobs twice.") == {"worker"}


def test_a_change_cue_lowers_the_certainty_a_conflict_needs() -> None:
    probs = {"same": 0.1, "conflict": 0.6, "compatible": 0.3}
    thresholds = Thresholds(conflict=0.9, rules_conflict=0.9, same=0.9, cue_conflict=0.5)
    facts = {"rules_conflict": False, "reversed_stances": False, "value_differs": True}
    assert decide(probs, thresholds, **facts) == "compatible"
    assert decide(probs, thresholds, change_cue=True, **facts) == "conflict"
    # Only the newer saying it is a change counts.
    assert pair_model.says_change("Logging uses zerolog.", "Going forward we log with slog.")
    assert not pair_model.says_change("From now on use zap.", "Going forward use slog.")
    assert not pair_model.says_change("Logging uses zerolog.", "Logging uses slog.")
    # "instead" in a rule about something else changes nothing here.
    assert not pair_model.says_change(
        "Use pnpm, never npm, for installs.", "Use async/await instead of .then() chains."
    )


def test_a_joined_subject_is_said_in_its_parts() -> None:
    """ "Two-space indentation ..." is the subject "indent with two spaces" names."""
    assert not pair_model.differs_in_value(
        "Indent YAML files with two spaces.",
        "Two-space indentation is what we use in every YAML file.",
    )
    # A part left unsaid still tells two subjects apart.
    assert pair_model.differs_in_value(
        "Two-space indentation is used in YAML files.", "Tab characters are used in Makefiles."
    )


def test_please_is_no_subject() -> None:
    assert pair_model.subject("pls use StyleSheet.create, no inline style objs") == frozenset()
    assert pair_model.subject("kindly ensure that every API call has a timeout") == frozenset()


@pytest.mark.parametrize(
    ("text", "changes"),
    [
        ("From now on we log with slog.", True),
        ("We switched the deploys to GKE.", True),
        ("We no longer use Moment.", True),
        ("Requests go via apiClient rather than raw fetch calls.", False),
        ("Wrap errors with %w instead of returning them bare.", False),
        ("Both -Wall and -Wextra are switched on.", False),
    ],
)
def test_a_preference_is_no_change_over_time(text: str, changes: bool) -> None:
    assert says_change_over_time(text) is changes


def test_a_preference_reworded_may_be_merged() -> None:
    """ "rather than" in the newer is no sign that the rule changed."""
    assert not pair_model.differs_in_value(
        "Never call fetch directly in the app; go through apiClient.",
        "All network requests are made via apiClient from src/lib/api rather than raw fetch calls.",
    )
    assert pair_model.differs_in_value(
        "Log with structlog.", "From now on we log with loguru instead of structlog."
    )


def _signal(name: str, older: str, newer: str) -> float:
    """One named feature of a pair, read without the similarity model."""
    return pair_model.features(older, newer, None)[pair_model.NAMES.index(name)]


def test_one_subject_with_another_name_on_each_side_is_a_signal() -> None:
    """ "Emails ... SendGrid" / "Transactional email ... Postmark": one thing, two tools."""

    def signal(older: str, newer: str) -> float:
        return _signal("a subject word shared, names differ on both sides", older, newer)

    assert signal("Emails are sent through SendGrid.", "Transactional email goes via Postmark.")
    assert not signal("Emails are sent through SendGrid.", "Emails are sent through SendGrid.")
    assert not signal("Emails are sent through SendGrid.", "Invoices are stored in S3.")


def test_a_change_over_time_on_a_shared_word_is_a_signal() -> None:
    def signal(older: str, newer: str) -> float:
        return _signal("the newer says a change over time", older, newer)

    assert signal("Routes are declared with auto_route.", "From now on routes use go_router.")
    # A preference is no change; a change of something else shares no word.
    assert not signal("Routes use auto_route.", "Routes use go_router rather than auto_route.")
    assert not signal("Routes use auto_route.", "From now on standups are on Slack.")
