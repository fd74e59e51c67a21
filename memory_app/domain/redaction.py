"""Secret redaction, applied to every transcript before anything is stored.

Secrets must never reach the database: a memory store that leaks keys into a CLAUDE.md
block is worse than none. Each secret is replaced by a typed placeholder such as
`[REDACTED:aws-access-key]`, so a reader still sees that something was there, and what.

How it stays correct and fast:
- Rules run one after another, most specific first, so a provider key inside a
  `password = "..."` assignment is reported once, as the provider key.
- Every pattern starts with a literal (so the regex engine can skip ahead) and uses only
  bounded repetition: a megabyte without a newline cannot backtrack catastrophically.
  Keyword rules (`password =`, `Authorization:`) match on a lowercased copy of the text,
  because case-insensitive alternations are several times slower in `re`.
- A placeholder never matches any rule, so redaction is idempotent.
- False positives are kept low: identifiers (`password_field`), calls
  (`get_password()`), numbers (`token_count = 5`), UUIDs and git SHAs are left alone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import pairwise

from memory_app.domain.private_spans import without_private
from memory_app.domain.transcripts import Transcript

PLACEHOLDER_PREFIX = "[REDACTED:"
_PLACEHOLDER = re.compile(r"\[REDACTED:([a-z-]{1,40})\]")

# Every kind a finding can have (the `x` in `[REDACTED:x]`).
KINDS = (
    "private-key",
    "jwt",
    "anthropic-key",
    "openai-key",
    "aws-access-key",
    "aws-secret-key",
    "github-token",
    "gitlab-token",
    "slack-token",
    "slack-webhook",
    "google-api-key",
    "stripe-key",
    "npm-token",
    "pypi-token",
    "huggingface-token",
    "sendgrid-key",
    "digitalocean-token",
    "twilio-key",
    "azure-storage-key",
    "bearer-token",
    "basic-auth",
    "password",
    "secret",
    "token",
    "api-key",
)


def placeholder(kind: str) -> str:
    """The text that stands in for a secret of this kind."""
    return f"{PLACEHOLDER_PREFIX}{kind}]"


@dataclass(frozen=True)
class Redacted:
    """Redacted text and the kinds of secrets removed (one entry per occurrence)."""

    text: str
    findings: tuple[str, ...] = ()


# A check decides, from the match, the original text and the rule's kind, which kind of
# secret was found (None: not a secret after all, keep the text).
_Check = Callable[[re.Match[str], str, str], "str | None"]


@dataclass(frozen=True)
class _Rule:
    kind: str
    pattern: re.Pattern[str]
    # Lowercase strings, one of which must occur for the rule to run: a cheap pre-check
    # for patterns that do not start with a literal (those the regex engine skips to fast).
    anchors: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()  # replace the first of these that matched (none: all)
    check: _Check | None = None
    # Set for keyword rules: the pattern is lowercase and runs over the lowercased text;
    # this case-insensitive twin is used when lowercasing changes the text's length.
    caseless_fallback: re.Pattern[str] | None = None


def _caseless(
    kind: str, source: str, anchors: tuple[str, ...], groups: tuple[str, ...], check: _Check
) -> _Rule:
    """A keyword rule: `source` is lowercase and runs over the lowercased text."""
    return _Rule(
        kind,
        re.compile(source),
        anchors,
        groups,
        check,
        caseless_fallback=re.compile(source, re.IGNORECASE),
    )


_VALUE_GROUPS = ("dq", "sq", "bare")  # a quoted or a bare value, whichever matched


def _matched_group(match: re.Match[str], names: tuple[str, ...]) -> str:
    return next(name for name in names if match.start(name) >= 0)


def _value(match: re.Match[str], text: str, names: tuple[str, ...]) -> tuple[str, str]:
    """The matched group's name and its text in the original (not lowercased) string."""
    name = _matched_group(match, names)
    start, end = match.span(name)
    return name, text[start:end]


# --- checks -------------------------------------------------------------------------------

_NAME = re.compile(r"[A-Za-z_][A-Za-z_.]*")
_NUMBER = re.compile(r"[0-9][0-9_.,]*")
# Values that stand for a secret without being one: "****", "<your-token>", "$TOKEN",
# "{{ secret }}", "{password}", "%(password)s", "%s", "%API_KEY%".
_PLACEHOLDER_VALUE = re.compile(
    r"[*x•._#-]+|<[^>]*>|\$.*|\{\{.*|\{[A-Za-z0-9_.]*\}|%\(.*|%[sdr]|%[A-Za-z_]+%", re.I
)
_NON_SECRETS = frozenset(
    {"none", "null", "nil", "true", "false", "undefined", "empty", "required", "optional"}
)
# Words that follow a flag's name in prose ("pass --token and the id"), not values.
_PROSE_WORDS = frozenset(
    "and or to the is was are be flag option argument with for in of if on when instead "
    "only must should can will not as at from that this which".split()
)
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def _kind_of_keyword(keyword: str) -> str:
    keyword = keyword.lower()
    if keyword.startswith("pass"):
        return "password"
    if keyword in ("secret", "token"):
        return keyword
    return "api-key"


def _key_before(text: str, end: int) -> str:
    """The whole key name ending at `end` (`DB_PASSWORD` for the keyword `PASSWORD`)."""
    start = end
    while start > 0 and end - start < 64 and text[start - 1] in _KEY_CHARS:
        start -= 1
    return text[start:end]


def _is_literal_secret(
    value: str, *, quoted: bool, env_style: bool, passphrase: bool = False
) -> bool:
    """Whether an assigned value is a literal secret rather than code or a placeholder."""
    if PLACEHOLDER_PREFIX in value:
        return False
    if _PLACEHOLDER_VALUE.fullmatch(value) or value.lower() in _NON_SECRETS:
        return False
    if quoted:
        return len(value) >= 3
    if len(value) < 6 or _NUMBER.fullmatch(value):
        return False
    # KEY=value in a .env file or a shell is a literal. Elsewhere a bare name
    # (`password: string`, `token = settings.token`) is code, not a secret, while a bare
    # word with digits or symbols (`Password: hunter2!`) is one, and so is a passphrase
    # of letters alone (`db_password=correcthorsebattery`).
    return env_style or not _NAME.fullmatch(value) or (passphrase and _is_passphrase(value))


# Words that follow `password:` in code and forms, not passwords: types, field kinds,
# states.
_CODE_WORDS = frozenset(
    "string boolean optional required nullable hidden secretstr charfield textfield "
    "varchar nvarchar passwordinput unicode redacted masked encrypted hashed placeholder "
    "undefined sensitive protected readonly writeonly autocomplete confidential "
    "authentication authorization environment configuration".split()
)


# A passphrase of letters alone is long ("correcthorsebatterystaple"); shorter words after
# `password:` are mostly a setting or a host ("mandatory", "localhost", "keystore").
_PASSPHRASE_LETTERS = 12


def _is_passphrase(value: str) -> bool:
    """Letters alone, long enough, not an identifier (`passwordHash`, `hashed_pw`,
    `form.password`) nor a word that code puts there (`string`, `required`)."""
    if not value.isalpha() or len(value) < _PASSPHRASE_LETTERS:
        return False
    camel = any(a.islower() and b.isupper() for a, b in pairwise(value))
    lowered = value.lower()
    named = any(word in lowered for word in ("pass", "secret", "token", "field", "input"))
    return not camel and not named and lowered not in _CODE_WORDS


def _assignment(match: re.Match[str], text: str, kind: str) -> str | None:
    """`password = "..."`, `API_KEY=...`, `"token": "..."`: literal values only."""
    keyword = match.group("kw")
    key = _key_before(text, match.end("kw"))
    if keyword == "pass" and key.lower() != "pass" and key[-5:-4] not in ("_", "-", "."):
        return None  # "bypass", "compass": only DB_PASS, smtp-pass, pass
    name, value = _value(match, text, _VALUE_GROUPS)
    quoted = name != "bare"
    end = match.end()
    if not quoted and end < len(text) and text[end] in "([":
        return None  # a call or an index: `password = get_password()`
    env_style = key.isupper() and match.group("sep") == "="
    kind_found = _kind_of_keyword(keyword)
    passphrase = kind_found == "password"
    if not _is_literal_secret(value, quoted=quoted, env_style=env_style, passphrase=passphrase):
        return None
    return kind_found


def _flag(match: re.Match[str], text: str, kind: str) -> str | None:
    """`--password xyz`, `--token=abc`: any literal value after a secret-named flag."""
    _, value = _value(match, text, _VALUE_GROUPS)
    if value.startswith(("$", "-", "<", "%", "{{", PLACEHOLDER_PREFIX)):
        return None
    if value.lower() in _NON_SECRETS or value.lower() in _PROSE_WORDS:
        return None
    return _kind_of_keyword(match.group("kw"))


def _said_password(match: re.Match[str], text: str, kind: str) -> str | None:
    """A password said in a sentence: quoted, or a word with a letter and a digit or a
    symbol ("hunter22x"), not an adjective ("the password is required")."""
    name, value = _value(match, text, ("quoted", "bare"))
    if name == "quoted":
        return kind if _is_literal_secret(value, quoted=True, env_style=False) else None
    # A hyphen joins words ("case-sensitive", "hard-coded"): it does not make a password.
    letters = any(c.isalpha() for c in value)
    others = any(not c.isalpha() and c != "-" for c in value)
    return kind if letters and others and not _NUMBER.fullmatch(value) else None


def _authorization(match: re.Match[str], text: str, kind: str) -> str | None:
    return "basic-auth" if match.group("scheme").lower() == "basic" else kind


def _has_digit_and_letter(match: re.Match[str], text: str, kind: str) -> str | None:
    """A hex key has both; a run of one digit or one letter is no key."""
    value = match.group(0)[2:]
    return kind if any(c.isdigit() for c in value) and any(c.isalpha() for c in value) else None


def _has_digit(match: re.Match[str], text: str, kind: str) -> str | None:
    """Only when the secret (the last named group, else the match) has a digit: kebab-case
    words and prose have none."""
    start, end = match.span(match.lastgroup or 0)
    return kind if any(c.isdigit() for c in text[start:end]) else None


def _looks_random(match: re.Match[str], text: str, kind: str) -> str | None:
    """Generated keys mix digits and both cases; slugs like "sk-2024-roadmap" do not."""
    value = match.group(0)
    has_digit = any(c.isdigit() for c in value)
    return kind if has_digit and value.lower() != value and value.upper() != value else None


def _mixed_case(match: re.Match[str], text: str, kind: str) -> str | None:
    """AWS secret keys mix cases; a hex SHA (all lowercase) is not one."""
    _, value = _value(match, text, ("value",))
    return kind if value.lower() != value and value.upper() != value else None


def _random_key(match: re.Match[str], text: str, kind: str) -> str | None:
    """A generated key of 40 characters mixes cases and has a digit or a slash; a word
    or a hex SHA does not."""
    _, value = _value(match, text, ("value",))
    mixed = value.lower() != value and value.upper() != value
    return kind if mixed and any(c.isdigit() or c in "/+" for c in value) else None


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,30}\Z")


def _url_credentials(match: re.Match[str], text: str, kind: str) -> str | None:
    """Only `scheme://user:password@`: the `://` must follow a URL scheme."""
    return kind if _SCHEME.search(text, max(0, match.start() - 31), match.start()) else None


# --- the rules, most specific first -------------------------------------------------------
# Token patterns repeat the literal prefix in a lookbehind so they only start where a
# token starts (not inside "risk-..." or a run of "eyJeyJ..."), and use possessive
# quantifiers (`{20,}+`), so each character is scanned a bounded number of times.

_KEYWORDS = (
    "password|passwd|pass|secret|token|api_key|api-key|apikey|access_key|access-key"
    "|secret_key|secret-key|secretkey|private_key|private-key|auth_key|auth-key"
)
_KEYWORD_ANCHORS = ("pass", "token", "secret", "key")
_PEM_LINE_END = r"(?:\r?\n|\\r\\n|\\n)"  # real newlines, or JSON-escaped ones in quoted text


def _token(prefix: str, body: str, *, joined: bool = False) -> str:
    """`prefix` followed by `body`, only where `prefix` does not continue a word ("risk-"
    holds no "sk-" key). `joined`: it may also start after a dash or an underscore
    ("proj-ghp_..."), for tokens whose body stops at those (so a run of prefixes
    cannot be rescanned from every position)."""
    before = "[A-Za-z0-9]" if joined else "[A-Za-z0-9_-]"
    return prefix + r"(?<!" + before + prefix + ")" + body


_RULES: tuple[_Rule, ...] = (
    _Rule(
        "private-key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY-----"
            r"(?:(?:[^-]|-(?!----)){0,16384}+-----END (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY-----"
            # Cut off before its END line (a truncated `cat`): take the PEM lines that follow.
            r"|(?:" + _PEM_LINE_END + r"{1,2}+"
            r"(?:[A-Za-z-]{1,32}: [^\n\\]{0,512}+|[A-Za-z0-9+/=]{1,128}+)){0,400}+)"
        ),
    ),
    _Rule(
        "jwt",
        re.compile(
            _token("eyJ", r"[A-Za-z0-9_-]{5,}+\.eyJ[A-Za-z0-9_-]{5,}+\.[A-Za-z0-9_-]{10,}+")
        ),
    ),
    _Rule("anthropic-key", re.compile(_token("sk-ant-", r"[A-Za-z0-9_-]{20,}+"))),
    _Rule(
        "openai-key",
        re.compile(_token("sk-", r"[A-Za-z0-9_-]{20,}+")),
        check=_looks_random,
    ),
    _Rule(
        "aws-access-key",
        re.compile(_token("A[KS]IA", r"[A-Z0-9]{16}(?![A-Za-z0-9])", joined=True)),
    ),
    _caseless(
        "aws-secret-key",
        r"(?:aws_?secret(?:_?access)?(?:_?key)?|secret_?access_?key)"
        r"[^\n]{0,60}?(?<![a-z0-9/+])(?P<value>[a-z0-9/+]{40})(?![a-z0-9/+=])",
        ("secret",),
        ("value",),
        _mixed_case,
    ),
    _Rule(
        "github-token",
        re.compile(_token("gh[pousr]_", r"[A-Za-z0-9]{36,}+(?![_-])", joined=True)),
    ),
    _Rule(
        "github-token",
        re.compile(_token("github_pat_", r"[A-Za-z0-9_]{22,}+")),
    ),
    _Rule("gitlab-token", re.compile(_token("glpat-", r"[A-Za-z0-9_-]{20,}+"))),
    _Rule(
        "slack-token",
        re.compile(_token("xox[baprs]-", r"[A-Za-z0-9-]{10,}+")),
        check=_has_digit,
    ),
    _Rule(
        "slack-webhook",
        re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}+"),
    ),
    _Rule(
        "google-api-key",
        re.compile(_token("AIza", r"[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])")),
    ),
    _Rule(
        "stripe-key",
        re.compile(_token("[sr]k_(?:live|test)_", r"[0-9A-Za-z]{16,}+")),
        anchors=("_live_", "_test_"),
    ),
    _Rule("npm-token", re.compile(_token("npm_", r"[A-Za-z0-9]{36}(?![A-Za-z0-9])", joined=True))),
    _Rule("pypi-token", re.compile(_token("pypi-", r"AgE[A-Za-z0-9_-]{50,}+"))),
    _Rule(
        "huggingface-token",
        re.compile(_token("hf_", r"[A-Za-z0-9]{30,40}(?![A-Za-z0-9_-])", joined=True)),
    ),
    _Rule(
        "sendgrid-key",
        re.compile(_token("SG\\.", r"[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,60}+")),
    ),
    _Rule(
        "digitalocean-token",
        re.compile(_token("do[opr]_v1_", r"[a-f0-9]{64}(?![A-Za-z0-9])", joined=True)),
        anchors=("_v1_",),
    ),
    _Rule(
        "twilio-key",
        re.compile(_token("SK", r"[0-9a-f]{32}(?![A-Za-z0-9])")),
        check=_has_digit_and_letter,
    ),
    _Rule(
        "azure-storage-key",
        re.compile(r"AccountKey=(?P<value>[A-Za-z0-9+/]{40,100}+={0,2})"),
        groups=("value",),
    ),
    # A 40-character AWS secret said near its key id or the word "secret" in prose
    # ("id AKIA... secret wJalr..."), where no assignment names it.
    _caseless(
        "aws-secret-key",
        r"(?:secret|\[redacted:aws-access-key\])[^\n]{0,80}?(?<![a-z0-9/+])"
        r"(?P<value>[a-z0-9/+]{40})(?![a-z0-9/+=])",
        ("secret", "[redacted:aws-access-key]"),
        ("value",),
        _random_key,
    ),
    _Rule(
        "password",
        re.compile(r"://[^\s:/@\[\]]{0,256}+:(?!\[REDACTED:)(?P<pw>[^\s@/]{1,256}+)@(?=[\w\[])"),
        groups=("pw",),
        check=_url_credentials,
    ),
    _caseless(
        "bearer-token",
        r"authorization[\"']?[ \t]*+[:=][ \t]*+[\"']?[ \t]*+(?P<scheme>bearer|token|basic)"
        r"[ \t]++(?!\[redacted:)(?P<value>[a-z0-9._~+/-]{8,}+=*+)",
        (),
        ("value",),
        _authorization,
    ),
    _Rule(
        "bearer-token",
        re.compile(r"Bearer[ \t]++(?!\[REDACTED:)(?P<value>[A-Za-z0-9._~+/-]{20,}+=*+)"),
        groups=("value",),
        check=_has_digit,
    ),
    _caseless(
        "password",  # in prose: "the password is hunter22x", "password was S3cret!"
        r"(?:password|passphrase|passwd)[ \t]++(?:is|was|will be|should be)[ \t]++"
        r"(?:[\"'`](?P<quoted>[^\"'`\n]{4,128}+)[\"'`]"
        r"|(?P<bare>[a-z0-9!@#$%^&*_+=~-]{6,64}+)(?![a-z0-9!@#$%^&*_+=~/-]))",
        ("pass",),
        ("quoted", "bare"),
        _said_password,
    ),
    _caseless(
        "secret",  # the kind comes from the flag's name
        r"--(?<![a-z0-9_-]--)(?:[a-z0-9]{1,20}-){0,3}?(?P<kw>" + _KEYWORDS + r")(?:=|[ \t]++)"
        r"(?:\"(?P<dq>[^\"\n]{1,512}+)\"|'(?P<sq>[^'\n]{1,512}+)'|(?P<bare>[^\s\"'`]{1,512}+))",
        (),
        _VALUE_GROUPS,
        _flag,
    ),
    _caseless(
        "secret",  # the kind comes from the key's name
        r"(?P<kw>" + _KEYWORDS + r")\\?[\"']?[ \t]*+(?P<sep>:=|=>|[:=])[ \t]*+"
        r"(?:\\?\"(?P<dq>[^\"\\\n]{1,512}+)\\?\"|'(?P<sq>[^'\n]{1,512}+)'"
        r"|(?P<bare>[^\s\"'`,;(){}\[\]<>&]{1,512}+))",
        _KEYWORD_ANCHORS,
        _VALUE_GROUPS,
        _assignment,
    ),
)


def _apply(rule: _Rule, text: str, lowered: str, findings: list[str]) -> str:
    """Run one rule over the text; returns the text (the same object if unchanged)."""
    haystack, pattern = text, rule.pattern
    if rule.caseless_fallback is not None:
        if len(lowered) == len(text):
            haystack = lowered  # same offsets, so spans index the original text too
        else:
            pattern = rule.caseless_fallback
    pieces: list[str] = []
    last = position = 0
    while match := pattern.search(haystack, position):
        start = match.start()
        kind: str | None = rule.kind
        if rule.check is not None:
            kind = rule.check(match, text, rule.kind)
        if kind is None:
            position = start + 1  # a rejected match may hide a real one inside it
            continue
        name = _matched_group(match, rule.groups) if rule.groups else 0
        span_start, span_end = match.span(name)
        pieces += (text[last:span_start], placeholder(kind))
        findings.append(kind)
        last, position = span_end, match.end()
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


def redact(text: str) -> Redacted:
    """Replace every secret found in `text` by a typed placeholder."""
    if not text:
        return Redacted(text)
    lowered = text.lower()
    findings: list[str] = []
    for rule in _RULES:
        if rule.anchors and not any(anchor in lowered for anchor in rule.anchors):
            continue
        changed = _apply(rule, text, lowered, findings)
        if changed is not text:
            text = changed
            lowered = text.lower()
    return Redacted(text, tuple(findings))


def redact_transcript(transcript: Transcript) -> tuple[Transcript, tuple[str, ...]]:
    """Redact every turn and the metadata a session carries (title, project folder,
    branch, file path): a token pasted into a branch name or a folder is as secret as
    one in a message. Returns the clean transcript and all findings."""
    findings: list[str] = []
    turns = []
    for turn in transcript.turns:
        # An importer may have redacted already (a tool call is redacted before it is
        # shortened): what it removed counts too.
        findings.extend(_PLACEHOLDER.findall(turn.text))
        # What a person marked <private> goes first, whatever it holds.
        shown, hidden = without_private(turn.text)
        result = redact(shown)
        findings.extend(result.findings)
        changed = result.findings or hidden
        turns.append(replace(turn, text=result.text) if changed else turn)

    def clean(value: str | None) -> str | None:
        if not value:
            return value
        result = redact(without_private(value)[0])
        findings.extend(result.findings)
        return result.text

    return replace(
        transcript,
        turns=tuple(turns),
        title=clean(transcript.title),
        project=clean(transcript.project),
        branch=clean(transcript.branch),
        # Claude Code names a session's folder after its working folder: a token there
        # is in the file's path too.
        source_path=clean(transcript.source_path),
    ), tuple(findings)


# How a kind is named when a person is told what was removed ("2 AWS keys").
_KIND_NAMES = {
    "private-key": ("private key", "private keys"),
    "aws-access-key": ("AWS key", "AWS keys"),
    "aws-secret-key": ("AWS secret key", "AWS secret keys"),
    "password": ("password", "passwords"),
    "jwt": ("JSON web token", "JSON web tokens"),
    "basic-auth": ("basic-auth credential", "basic-auth credentials"),
    "secret": ("secret", "secrets"),
    "token": ("token", "tokens"),
    "api-key": ("API key", "API keys"),
}


def removed_secrets(text: str) -> str:
    """What redaction removed from a stored text, said for a person: "3 secrets removed:
    2 AWS keys, 1 password" (most frequent first), or "" when nothing was."""
    kinds = Counter(_PLACEHOLDER.findall(text))
    total = sum(kinds.values())
    if not total:
        return ""
    parts = []
    for kind, count in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])):
        one, many = _KIND_NAMES.get(kind, (kind.replace("-", " "), kind.replace("-", " ") + "s"))
        parts.append(f"{count} {one if count == 1 else many}")
    noun = "secret" if total == 1 else "secrets"
    return f"{total} {noun} removed: {', '.join(parts)}"
