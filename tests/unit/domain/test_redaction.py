"""Secret redaction: every kind is caught, ordinary text is not touched."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory_app.domain.redaction import KINDS, Redacted, placeholder, redact, redact_transcript
from memory_app.domain.transcripts import Transcript, Turn

# Fake secrets are assembled from pieces so that secret scanners do not flag this file.
ANTHROPIC = "sk-" + "ant-api03-" + "Xy7" * 30
OPENAI_LEGACY = "sk-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7dEf0hIj3kLm6n"
OPENAI_PROJECT = "sk-" + "proj-" + "Q1w2E3r4T5y6U7i8O9p0_aSdFgHjKl-ZxCvBnM" * 3
AWS_KEY_ID = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_TEMP_KEY_ID = "ASIA" + "Y34FZKBOKMUTVV7A"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
GITHUB_CLASSIC = "ghp" + "_" + "aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2"
GITHUB_APP = "ghs" + "_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8"
GITHUB_FINE = (
    "github_pat_"
    + "11ABCDEFG0123456789_"
    + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTU"
)
GITLAB = "glpat-" + "xY3zA7bC9dE1fG5hJ2kL"
SLACK = "xoxb-" + "123456789012-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx"
GOOGLE = "AIza" + "SyD4x9Qm2Lw8Kp3Nv7Rt1Ys6Hb5Jc0Gf2Ze"
STRIPE_LIVE = "sk_" + "live_" + "51H8xYzAbCdEfGhIjKlMnOp"
STRIPE_RESTRICTED = "rk_" + "live_" + "51H8xYzAbCdEfGhIjKlMnOp"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi2\n"
    "Zx8e7l0bXKrvxQ3cB9S5n1YzfJ2HkE8aW==\n"
    "-----END RSA PRIVATE KEY-----"
)


@pytest.mark.parametrize(
    ("text", "expected", "kinds"),
    [
        (f"key: {ANTHROPIC} end", f"key: {placeholder('anthropic-key')} end", ["anthropic-key"]),
        (f"use {OPENAI_LEGACY}", f"use {placeholder('openai-key')}", ["openai-key"]),
        (f"k={OPENAI_PROJECT}.", f"k={placeholder('openai-key')}.", ["openai-key"]),
        (f"id {AWS_KEY_ID} ok", f"id {placeholder('aws-access-key')} ok", ["aws-access-key"]),
        (AWS_TEMP_KEY_ID, placeholder("aws-access-key"), ["aws-access-key"]),
        (
            f"aws_secret_access_key = {AWS_SECRET}",
            f"aws_secret_access_key = {placeholder('aws-secret-key')}",
            ["aws-secret-key"],
        ),
        (
            f'export AWS_SECRET_ACCESS_KEY="{AWS_SECRET}"',
            f'export AWS_SECRET_ACCESS_KEY="{placeholder("aws-secret-key")}"',
            ["aws-secret-key"],
        ),
        (
            f'{{"SecretAccessKey": "{AWS_SECRET}"}}',
            f'{{"SecretAccessKey": "{placeholder("aws-secret-key")}"}}',
            ["aws-secret-key"],
        ),
        (f"token {GITHUB_CLASSIC}", f"token {placeholder('github-token')}", ["github-token"]),
        (GITHUB_APP, placeholder("github-token"), ["github-token"]),
        (f"[{GITHUB_FINE}]", f"[{placeholder('github-token')}]", ["github-token"]),
        (GITLAB, placeholder("gitlab-token"), ["gitlab-token"]),
        (f"SLACK {SLACK} x", f"SLACK {placeholder('slack-token')} x", ["slack-token"]),
        (
            "post to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
            f"post to {placeholder('slack-webhook')}",
            ["slack-webhook"],
        ),
        (f"maps {GOOGLE}", f"maps {placeholder('google-api-key')}", ["google-api-key"]),
        (STRIPE_LIVE, placeholder("stripe-key"), ["stripe-key"]),
        (STRIPE_RESTRICTED, placeholder("stripe-key"), ["stripe-key"]),
        (f"cookie {JWT};", f"cookie {placeholder('jwt')};", ["jwt"]),
        (f"before\n{PEM}\nafter", f"before\n{placeholder('private-key')}\nafter", ["private-key"]),
        (
            'curl -H "Authorization: Bearer abc123def456ghi789" https://api.example.com',
            f'curl -H "Authorization: Bearer {placeholder("bearer-token")}" https://api.example.com',
            ["bearer-token"],
        ),
        (
            "authorization: token 0123456789abcdef0123",
            f"authorization: token {placeholder('bearer-token')}",
            ["bearer-token"],
        ),
        (
            '"Authorization": "Basic dXNlcjpwYXNzd29yZA=="',
            f'"Authorization": "Basic {placeholder("basic-auth")}"',
            ["basic-auth"],
        ),
        (
            "headers = {'X': 1, 'y': 'Bearer Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5'}",
            f"headers = {{'X': 1, 'y': 'Bearer {placeholder('bearer-token')}'}}",
            ["bearer-token"],
        ),
        ('password = "hunter22"', f'password = "{placeholder("password")}"', ["password"]),
        ("db_password: 'c0rrect-h0rse'", f"db_password: '{placeholder('password')}'", ["password"]),
        ("PASSWORD=supersecret", f"PASSWORD={placeholder('password')}", ["password"]),
        ("export DB_PASS=hunterhunter", f"export DB_PASS={placeholder('password')}", ["password"]),
        ('{"api_key": "abc123xyz"}', f'{{"api_key": "{placeholder("api-key")}"}}', ["api-key"]),
        ("client_secret: 9f8e7d6c5b4a", f"client_secret: {placeholder('secret')}", ["secret"]),
        ("SECRET_KEY=django-insecure-x", f"SECRET_KEY={placeholder('api-key')}", ["api-key"]),
        ("access_token=ya29.a0AfH6SMB", f"access_token={placeholder('token')}", ["token"]),
        ("Password: hunter2!", f"Password: {placeholder('password')}", ["password"]),
        (
            r"{\"password\": \"s3cr3t-value\"}",
            r"{\"password\": \"" + placeholder("password") + r"\"}",
            ["password"],
        ),
        (
            "mysql -u root --password xyz",
            f"mysql -u root --password {placeholder('password')}",
            ["password"],
        ),
        ("tool --api-key=abc123 run", f"tool --api-key={placeholder('api-key')} run", ["api-key"]),
        ('gh --token "my token"', f'gh --token "{placeholder("token")}"', ["token"]),
        (
            "postgres://user:pa55word@localhost:5432/db",
            f"postgres://user:{placeholder('password')}@localhost:5432/db",
            ["password"],
        ),
        (
            "postgresql+psycopg://app:s3cret@db.internal/app",
            f"postgresql+psycopg://app:{placeholder('password')}@db.internal/app",
            ["password"],
        ),
        (
            "mysql://root:toor@127.0.0.1:3306/x",
            f"mysql://root:{placeholder('password')}@127.0.0.1:3306/x",
            ["password"],
        ),
        (
            "mongodb+srv://admin:Pa%24%24w0rd@cluster0.mongodb.net/test",
            f"mongodb+srv://admin:{placeholder('password')}@cluster0.mongodb.net/test",
            ["password"],
        ),
        (
            "redis://:mypassword@localhost:6379/0",
            f"redis://:{placeholder('password')}@localhost:6379/0",
            ["password"],
        ),
        (
            "amqp://guest:guest@rabbit:5672/",
            f"amqp://guest:{placeholder('password')}@rabbit:5672/",
            ["password"],
        ),
    ],
)
def test_each_kind_of_secret_is_replaced_by_a_typed_placeholder(
    text: str, expected: str, kinds: list[str]
) -> None:
    result = redact(text)
    assert result == Redacted(expected, tuple(kinds))
    assert set(kinds) <= set(KINDS)


@pytest.mark.parametrize(
    "text",
    [
        "Please reset my password tomorrow; the token expired.",
        "The password is required and the secret is safe.",
        "password_field = form.get('password')",
        "token_count = 5",
        "max_tokens: 4096",
        '"input_tokens": 25, "output_tokens": 110',
        "password = get_password()",
        "token = os.environ['GITHUB_TOKEN']",
        "api_key = settings.api_key",
        "password: string",
        "def login(password: str, token: Optional[str] = None) -> None:",
        "export GITHUB_TOKEN=$(gh auth token)",
        'token: "${{ secrets.GITHUB_TOKEN }}"',
        "password: <your-password>",
        'password = "****"',
        "echo $PASSWORD | docker login --password-stdin",
        "Use --token and the id",
        "bypass: true",
        "session 550e8400-e29b-41d4-a716-446655440000 resumed",
        "commit 3f2a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a fixed it",
        "AWS_SECRET_ACCESS_KEY was rotated in 3f2a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a",
        "see risk-assessment-framework-2024-edition-final",
        "the task-2024-quarterly-planning-document-v2",
        "visit http://localhost:8080/path?x=1 and https://example.com/a@b",
        "git@github.com:owner/repo.git",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\n-----END PUBLIC KEY-----",
        "Authorization: Bearer $TOKEN",
        "In Kotlin: AKIAPPLE is not a key, nor is eyJ alone.",
        "The password is case-sensitive and the password was reset-by-admin.",
        "Remember the password is hard-coded in settings.py, and the password is auto-generated.",
        "password: mandatory",
        "db_password: localhost",
        "key_password: keystore",
        "password: autocomplete",
        "password: str",
        "PASSWORD_HASHERS = ['django.contrib.auth.hashers.Argon2PasswordHasher']",
        'token_type = "bearer"',
        "password: ${DB_PASSWORD}",
        "The password is stored hashed; the password is correct.",
        "see risk-ghp_notes for details",
    ],
)
def test_ordinary_text_and_code_are_left_alone(text: str) -> None:
    assert redact(text) == Redacted(text, ())


PASSWORDS_AND_NEW_KINDS = {
    "password: " + "tangerinepelicanmarble": "password: [REDACTED:password]",
    "db_password=" + "correcthorsebatterystaple": "db_password=[REDACTED:password]",
    "the password is " + "hunter22x.": "the password is [REDACTED:password].",
    'the password is "' + 'blue sky 7"': 'the password is "[REDACTED:password]"',
    f"{AWS_KEY_ID} secret {AWS_SECRET}": "[REDACTED:aws-access-key] secret "
    "[REDACTED:aws-secret-key]",
    "npm" + "_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8": "[REDACTED:npm-token]",
    "pypi-" + "AgEIcHlwaS5vcmc" + "CJGQ" * 15: "[REDACTED:pypi-token]",
    "hf" + "_" + "qwertyuiopasdfghjklzxcvbnmqwertyui": "[REDACTED:huggingface-token]",
    "SG" + ".ngeVfQFYQlKU0ufo8x5d1A" + ".TwL2iGABf9DHoTf09kqeF8tAmbihYzrnopKc1s5cr8z": (
        "[REDACTED:sendgrid-key]"
    ),
    "dop" + "_v1_" + "3f9a1c2b7e8d4f6a" * 4: "[REDACTED:digitalocean-token]",
    "SK" + "7b3c9d1e5f2a4b6c8d0e1f3a5b7c9d2e": "[REDACTED:twilio-key]",
    "AccountName=x;AccountKey=" + "Zm9vYmFy" * 11 + "Qw==;": (
        "AccountName=x;AccountKey=[REDACTED:azure-storage-key];"
    ),
    "cwd /home/dev/proj-" + GITHUB_CLASSIC: "cwd /home/dev/proj-[REDACTED:github-token]",
}


@pytest.mark.parametrize(("text", "expected"), PASSWORDS_AND_NEW_KINDS.items())
def test_passwords_in_words_and_the_newer_token_kinds(text: str, expected: str) -> None:
    result = redact(text)
    assert result.text == expected
    assert set(result.findings) <= set(KINDS)


def test_each_occurrence_is_one_finding_in_text_order() -> None:
    text = f"first {GITHUB_CLASSIC} then {GITHUB_APP} and {AWS_KEY_ID}"
    assert redact(text).findings == ("aws-access-key", "github-token", "github-token")


def test_a_provider_key_inside_an_assignment_is_reported_once_as_that_provider() -> None:
    result = redact(f'ANTHROPIC_API_KEY="{ANTHROPIC}"')
    assert result.text == f'ANTHROPIC_API_KEY="{placeholder("anthropic-key")}"'
    assert result.findings == ("anthropic-key",)


def test_credentials_in_a_url_keep_the_rest_of_the_url() -> None:
    result = redact(f"git clone https://x-access-token:{GITHUB_CLASSIC}@github.com/o/r.git")
    assert result.text == (
        f"git clone https://x-access-token:{placeholder('github-token')}@github.com/o/r.git"
    )


def test_a_private_key_cut_off_before_its_end_line_is_still_removed() -> None:
    text = (
        "$ head -3 id_rsa\n-----BEGIN OPENSSH PRIVATE KEY-----\n"
        "b3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACB"
    )
    result = redact(text)
    assert result.text == f"$ head -3 id_rsa\n{placeholder('private-key')}"
    assert "b3Blbn" not in result.text


def test_a_private_key_in_json_escaped_text_is_removed() -> None:
    text = (
        r'{"content": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq\nhkiG9w0BAQEF'
        r'\n-----END PRIVATE KEY-----\n"}'
    )
    result = redact(text)
    assert result.text == '{"content": "' + placeholder("private-key") + r'\n"}'


def test_keyword_rules_work_when_lowercasing_changes_the_text_length() -> None:
    # "İ".lower() is two characters long, so the lowercased copy cannot be used.
    text = 'İstanbul config: PASSWORD = "hunter22" and Authorization: Bearer abc123def456'
    result = redact(text)
    assert result.text == (
        f'İstanbul config: PASSWORD = "{placeholder("password")}"'
        f" and Authorization: Bearer {placeholder('bearer-token')}"
    )


SECRETS_TEXT = "\n".join(
    [
        f"a {ANTHROPIC} b {OPENAI_PROJECT} c {AWS_KEY_ID}",
        f"aws_secret_access_key = {AWS_SECRET}",
        f"{GITHUB_FINE} {GITLAB} {SLACK} {GOOGLE} {STRIPE_LIVE}",
        f"Authorization: Bearer {JWT}",
        PEM,
        'password = "hunter22" PASSWORD=supersecret --token abc "api_key": "abc123xyz"',
        "postgres://user:pa55word@localhost/db redis://:pw123456@h:6379",
    ]
)


def test_redaction_is_idempotent() -> None:
    once = redact(SECRETS_TEXT)
    assert once.findings == (
        "private-key",
        "jwt",
        "anthropic-key",
        "openai-key",
        "aws-access-key",
        "aws-secret-key",
        "github-token",
        "gitlab-token",
        "slack-token",
        "google-api-key",
        "stripe-key",
        "password",  # postgres://
        "password",  # redis://
        "token",  # --token abc
        "password",  # password = "hunter22"
        "password",  # PASSWORD=supersecret
        "api-key",  # "api_key": "abc123xyz"
    )
    twice = redact(once.text)
    assert twice == Redacted(once.text, ())


def test_no_secret_survives_in_the_redacted_text() -> None:
    text = redact(SECRETS_TEXT).text
    for secret in (ANTHROPIC, OPENAI_PROJECT, AWS_KEY_ID, AWS_SECRET, GITHUB_FINE, GITLAB):
        assert secret not in text
    for secret in (SLACK, GOOGLE, STRIPE_LIVE, JWT, "hunter22", "supersecret", "pa55word"):
        assert secret not in text
    assert "MIIEpAIBAAKCAQEA" not in text


@pytest.mark.parametrize(
    "text",
    [
        "a" * 1_000_000,
        "-" * 1_000_000,
        "eyJ" * 340_000,
        "sk-" * 340_000,
        "password=" * 112_000,
        "Authorization:" + " " * 1_000_000 + "x",
        "://a:" * 200_000,
        "-----BEGIN PRIVATE KEY-----!" * 36_000,
        "aws_secret " * 91_000,
        "--password " * 91_000,
        '{"password":"' * 77_000,
    ],
    ids=lambda text: repr(text[:16]),
)
def test_pathological_megabyte_inputs_finish(text: str) -> None:
    result = redact(text)
    # Whatever it finds, a second pass finds nothing new.
    assert redact(result.text).text == result.text


def test_pathological_input_with_a_secret_at_the_end_still_finds_it() -> None:
    text = "x" * 1_000_000 + f" {GITHUB_CLASSIC}"
    assert redact(text).findings == ("github-token",)


def test_redact_transcript_cleans_every_turn_and_the_title() -> None:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    transcript = Transcript(
        source_kind="claude-code",
        title=f"Deploy with {AWS_KEY_ID}",
        turns=(
            Turn(0, "user", f"my key is {GITHUB_CLASSIC}", timestamp=when, source_line=3),
            Turn(1, "assistant", "I will not store it."),
            Turn(2, "tool", 'password = "hunter22"', kind="tool_result"),
        ),
    )
    clean, findings = redact_transcript(transcript)
    assert findings == ("github-token", "password", "aws-access-key")
    assert clean.title == f"Deploy with {placeholder('aws-access-key')}"
    assert clean.turns[0] == Turn(
        0, "user", f"my key is {placeholder('github-token')}", timestamp=when, source_line=3
    )
    assert clean.turns[1] is transcript.turns[1]
    assert clean.turns[2].text == f'password = "{placeholder("password")}"'
    assert clean.turns[2].kind == "tool_result"


def test_redact_transcript_without_secrets_returns_an_equal_transcript() -> None:
    transcript = Transcript(source_kind="text", turns=(Turn(0, "user", "hello there"),))
    clean, findings = redact_transcript(transcript)
    assert clean == transcript
    assert findings == ()
