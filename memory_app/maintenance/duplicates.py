"""Near-duplicate memories at scale: MinHash candidates, then a strict pairwise check.

Nightly consolidation looks at every live memory at once (a hundred thousand of them),
so comparing all pairs is out of the question. Instead:

1. **Shingles.** A statement's shingles are its content words
   (`domain.similarity.content_words`) with fillers ("please", "just", "note"...) dropped,
   common abbreviations spelled out ("repo" → "repository", "db" → "database") and plural
   and tense endings stripped ("tests", "testing" → "test"). Verification measures the
   Jaccard similarity of exactly these sets, so the LSH collision curve is a curve in the
   very number the threshold is set on. Word bigrams were measured too: they double the
   hashing cost and lower the similarity of reordered clauses ("Because CI is slow, run
   the linter first"), while the strict check below already tells word-order changes
   apart. Character n-grams cost five to ten times more per statement.

2. **Sketch and bands.** Each shingle gets a stable 64-bit hash (blake2b, so results do
   not depend on PYTHONHASHSEED). For each of `BANDS` fixed-seed 64-bit masks, a
   statement's band is the `ROWS` smallest values of ``hash ^ mask`` over its shingles (a
   bottom-`ROWS` MinHash under that mask). Two statements share a band exactly when the
   `ROWS` smallest shingles of their union all lie in their intersection, which happens
   with probability C(|A∩B|, r) / C(|A∪B|, r) ≈ J^r; so a pair with Jaccard J shares at
   least one of b bands with probability about 1 - (1 - J^r)^b. This gives b·r min-hash
   rows for the price of b passes instead of b·r (one sort of ~12 values per band rather
   than r separate minimums): 10 × 4 = 40 rows cost about 1.2 s per 100,000 statements.
   With b = 10, r = 4: P ≈ 0.9998 at J = 0.9, 0.985 at J = 0.8, 0.47 at J = 0.5.
   Band keys are salted with the scope (category, project), so statements of different
   scopes never meet. Items are bucketed in survivor order (best rank first); a bucket
   member is compared only with the bucket's first `BUCKET_PEERS` members, so a
   pathological bucket (thousands of near-identical one-liners) costs linear work.

3. **Verification** (each candidate against the survivor it would join, never through a
   chain). A pair is a duplicate when the Jaccard similarity of the shingle sets is at
   least `DUPLICATE_THRESHOLD` and nothing in how the two statements differ changes the
   meaning. Rejected when a word present in only one of them

   - is a number, a version or an identifier ("3.11"/"3.12", "8080", "src/app.py",
     "load_user"), or a number word;
   - is a negation ("not", "never", "don't", "avoid", "without", "disable"...);
   - forms a known antonym pair with a word only in the other ("always"/"never",
     "before"/"after", "sync"/"async", "min"/"max", "include"/"exclude"...);
   - replaces a content word of the other statement: when both sides have words of their
     own, they must be inflections or known synonyms of each other ("tests"/"testing",
     "repo"/"repository"), else the pair is rejected. Tool and identifier swaps ("use
     pytest" vs "use unittest") are substitutions and fall here whatever the tool is;

   or when the two sides of a relation word ("over", "instead", "before", "to"...) are
   swapped ("prefer tabs over spaces" vs "prefer spaces over tabs": equal word sets),
   or when the rules contradiction judge (`conflicts.judge`) finds a contradiction.
   Pure insertions of content words ("use the *shared* fixtures") are allowed as long
   as the similarity stays above the threshold.

**The threshold, measured** on `benchmarks/planted.py` (100,000 statements, seed 7): with
these shingles every planted near-duplicate kind (case and punctuation, a filler word, a
reordered clause, a synonym, one content word more in a statement of 8+ content words)
scores ≥ 0.875 (median 1.0), while among unrelated background statements the most
similar candidate pairs the LSH finds score at most 0.5 and no background pair passes
verification even at 0.7. Since every accepted pair differs only by insertions (a
substitution is rejected), the threshold only decides how much a statement may add:
0.8 lets a 4-content-word statement gain one word and a 10-word one gain two, and
keeps the LSH recall at J = 0.8 at 98.5% with 10 × 4 bands. Written memories already
merge exact and near-exact repeats at 0.85 (`domain.similarity.NEAR_DUPLICATE`); the
nightly pass can go lower because its check of the differences is much stricter.
"""

from __future__ import annotations

import hashlib
from array import array
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import groupby

from memory_app.conflicts.judge import judge
from memory_app.domain.similarity import content_key, content_words

DUPLICATE_THRESHOLD = 0.8
BANDS = 10
ROWS = 4
BUCKET_PEERS = 16  # a bucket member is compared with at most this many earlier members
CHUNK = 4096  # items between two progress()/check() calls
_PERSON = b"memory-dedupe"  # fixed: the same hashes, hence the same candidates, every run


@dataclass(frozen=True)
class DedupeItem:
    """One memory as the duplicate finder sees it."""

    id: int
    scope: tuple[str, str]  # (category, project or ""): only one scope's items can merge
    content: str
    rank: tuple[float, ...]  # higher sorts first; the best-ranked item of a group survives


@dataclass(frozen=True)
class DuplicateGroup:
    """A survivor and the items that say the same thing, each checked against it."""

    survivor: int
    duplicates: tuple[int, ...]
    similarity: tuple[float, ...]  # of each duplicate to the survivor, in the same order


# --- normalization -------------------------------------------------------------------

# Words that add nothing to a statement's meaning beyond the stop words content_words drops.
_FILLER = frozenset(
    "please just also really generally basically actually simply kindly note notes "
    "remember reminder important fyi btw ok okay".split()
)
# Abbreviations and near-synonyms spelled one way (before stemming).
_SYNONYMS = {
    "repo": "repository",
    "repos": "repository",
    "config": "configuration",
    "configs": "configuration",
    "cfg": "configuration",
    "conf": "configuration",
    "db": "database",
    "dbs": "database",
    "docs": "documentation",
    "doc": "documentation",
    "env": "environment",
    "envs": "environment",
    "dir": "directory",
    "dirs": "directory",
    "folder": "directory",
    "folders": "directory",
    "deps": "dependency",
    "dep": "dependency",
    "app": "application",
    "apps": "application",
    "auth": "authentication",
    "prod": "production",
    "dev": "development",
    "func": "function",
    "funcs": "function",
    "fn": "function",
    "args": "argument",
    "arg": "argument",
    "params": "parameter",
    "param": "parameter",
    "msg": "message",
    "msgs": "message",
    "err": "error",
    "errs": "error",
    "pkg": "package",
    "pkgs": "package",
    "lib": "library",
    "libs": "library",
    "impl": "implementation",
    "perf": "performance",
    "info": "information",
    "chose": "choose",
    "chosen": "choose",
    "picked": "choose",
    "pick": "choose",
    "selected": "choose",
    "select": "choose",
    "quick": "fast",
    "quickly": "fast",
    "big": "large",
    "huge": "large",
}
_NEGATIONS = frozenset(
    "not no never none nothing nobody neither nor without cannot avoid avoids avoided "
    "avoiding don doesn didn isn aren wasn weren won wouldn shouldn mustn couldn hasn haven "
    "hadn dont doesnt didnt isnt arent wont wouldnt shouldnt mustnt couldnt cant t "
    "disable disables disabled disabling forbid forbids forbidden prohibit prohibited "
    "unless except".split()
)
_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve fifteen twenty "
    "thirty forty fifty sixty hundred thousand million once twice thrice half double "
    "triple single".split()
)
_ANTONYM_PAIRS = (
    ("always", "never"),
    ("always", "sometimes"),
    ("enable", "disable"),
    ("sync", "async"),
    ("synchronous", "asynchronous"),
    ("blocking", "nonblocking"),
    ("before", "after"),
    ("allow", "deny"),
    ("allow", "disallow"),
    ("allow", "block"),
    ("accept", "reject"),
    ("true", "false"),
    ("yes", "no"),
    ("on", "off"),
    ("min", "max"),
    ("minimum", "maximum"),
    ("first", "last"),
    ("add", "remove"),
    ("add", "delete"),
    ("create", "delete"),
    ("include", "exclude"),
    ("start", "stop"),
    ("open", "close"),
    ("upper", "lower"),
    ("uppercase", "lowercase"),
    ("increase", "decrease"),
    ("more", "less"),
    ("more", "fewer"),
    ("higher", "lower"),
    ("above", "below"),
    ("inside", "outside"),
    ("internal", "external"),
    ("public", "private"),
    ("local", "remote"),
    ("strict", "lenient"),
    ("mutable", "immutable"),
    ("required", "optional"),
    ("explicit", "implicit"),
    ("lazy", "eager"),
    ("early", "late"),
    ("encrypt", "decrypt"),
    ("encode", "decode"),
    ("push", "pull"),
    ("import", "export"),
    ("read", "write"),
    ("input", "output"),
    ("success", "failure"),
    ("pass", "fail"),
)
# A reordering may break this many adjacencies of content words (a moved clause, an
# inserted word); exchanging words breaks more.
_MAX_BROKEN = 2
_IDENTIFIER_CHARS = frozenset("._/\\+#@:")


def _stem(word: str) -> str:
    """A crude, consistent stem: "tests"/"testing"/"tested" → "test", "caches" → "cach"."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("ss"):
        return word
    if word.endswith("ing") and len(word) > 5:
        word = word[:-3]
    elif (word.endswith("ed") and len(word) > 4) or word.endswith(
        ("sses", "xes", "zes", "ches", "shes")
    ):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("us", "is")):
        word = word[:-1]
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


class _Canon(dict[str, str]):
    """Content word → its canonical shingle ("" for a filler), computed once per word."""

    def __missing__(self, word: str) -> str:
        word = word.strip(".")
        canon = "" if word in _FILLER else _stem(_SYNONYMS.get(word, word))
        self[word] = canon
        return canon


class _Vectors(dict[str, tuple[int, ...]]):
    """Canonical shingle → one stable 64-bit hash per band.

    The hashes come from blake2b, 8 bands to a 64-byte digest (keyed by the digest's
    number), so each band orders shingles independently. (XOR-ing one hash with a mask
    per band is cheaper but the bands then agree too often: the smallest values under
    two masks sharing their top bits are the same shingles. Measured on sets of 10 words
    at Jaccard 0.8, that gave 92-94% candidates where independent bands give 98%.)"""

    def __missing__(self, shingle: str) -> tuple[int, ...]:
        data = shingle.encode("utf-8")
        raw = b"".join(
            hashlib.blake2b(data, digest_size=64, person=_PERSON + bytes([block])).digest()
            for block in range((BANDS + 7) // 8)
        )
        vector = tuple(int.from_bytes(raw[8 * i : 8 * i + 8], "little") for i in range(BANDS))
        self[shingle] = vector
        return vector


_ANTONYMS: dict[str, frozenset[str]] = {}
for _left, _right in _ANTONYM_PAIRS:
    for _a, _b in ((_left, _right), (_right, _left)):
        _key = _stem(_a)
        _ANTONYMS[_key] = _ANTONYMS.get(_key, frozenset()) | {_stem(_b)}


def _shingles(text: str, canon: _Canon) -> frozenset[str]:
    words = content_words(text)
    found = set(map(canon.__getitem__, words))
    found.discard("")
    return frozenset(found) if found else frozenset(w.strip(".") for w in words)


def _jaccard(a: frozenset[str] | tuple[str, ...], b: frozenset[str] | tuple[str, ...]) -> float:
    common = len(set(a).intersection(b))
    return common / (len(a) + len(b) - common) if common else 0.0


# --- verification --------------------------------------------------------------------


@dataclass(frozen=True)
class _Parsed:
    """What the pairwise check needs of one statement."""

    text: str
    tokens: tuple[str, ...]  # every normalized word, in order
    canon: tuple[str, ...]  # each token's canonical content word, "" for stop and filler
    content: tuple[str, ...]  # the tokens that are content words, in order
    words: tuple[str, ...]  # their canonical forms, in the same order


def _parse(text: str, canon: _Canon) -> _Parsed:
    tokens = tuple(content_key(text).split())
    meaningful = content_words(text)
    forms = tuple(canon[t] if t.strip(".") in meaningful else "" for t in tokens)
    content = tuple(t for t, form in zip(tokens, forms, strict=True) if form)
    return _Parsed(text, tokens, forms, content, tuple(f for f in forms if f))


def _is_numeric(word: str) -> bool:
    return word in _NUMBER_WORDS or any(ch.isdigit() for ch in word)


def _is_identifier(word: str) -> bool:
    return any(ch in _IDENTIFIER_CHARS for ch in word)


def _reordered(a: _Parsed, b: _Parsed) -> bool:
    """Were content words exchanged rather than whole phrases moved? Moving a clause
    ("Because CI is slow, run the linter first") or inserting a word breaks at most two
    adjacencies of content words; exchanging two words ("prefer tabs over spaces" →
    "prefer spaces over tabs", "from pino to winston" → "from winston to pino") or
    rotating three breaks at least three on both sides."""
    pairs_a = set(zip(a.words, a.words[1:], strict=False))
    pairs_b = set(zip(b.words, b.words[1:], strict=False))
    return min(len(pairs_a - pairs_b), len(pairs_b - pairs_a)) >= _MAX_BROKEN + 1


def _meaning_differs(a: _Parsed, b: _Parsed) -> bool:
    """Does what sets the two statements apart change what they say? Words are compared
    as multisets: "after X ... after Y" against "before X ... after Y" differs by one
    "after" and one "before"."""
    only_a = Counter(a.tokens) - Counter(b.tokens)
    only_b = Counter(b.tokens) - Counter(a.tokens)
    for word in only_a.keys() | only_b.keys():
        if word in _NEGATIONS or _is_numeric(word) or _is_identifier(word):
            return True
    if only_a and only_b:
        stems_b = {_stem(w) for w in only_b}
        for word in only_a:
            if _ANTONYMS.get(_stem(word), frozenset()) & stems_b:
                return True
    # Content words of their own on both sides: a substitution, unless inflections or
    # synonyms (which share a canonical form) account for them.
    canon_a, canon_b = Counter(a.words), Counter(b.words)
    if (canon_a - canon_b) and (canon_b - canon_a):
        return True
    return _reordered(a, b)


def _verify(a: _Parsed, b: _Parsed, sim: float) -> float | None:
    if a.tokens == b.tokens:
        return sim
    if _meaning_differs(a, b):
        return None
    if a.content == b.content:
        # The same content words in the same order: only case, punctuation, stop words
        # and fillers differ (never a negation: rejected above). The judge reads stances
        # off content words, so it cannot find a contradiction here; skip its cost.
        return sim
    return None if judge(a.text, b.text).contradicts else sim


def near_duplicate(a: str, b: str, threshold: float = DUPLICATE_THRESHOLD) -> float | None:
    """The similarity of `a` and `b` if they say the same thing, else None."""
    canon = _Canon()
    sim = _jaccard(_shingles(a, canon), _shingles(b, canon))
    if sim < threshold or not content_key(a) or not content_key(b):
        return None
    return _verify(_parse(a, canon), _parse(b, canon), round(sim, 4))


# --- the finder ----------------------------------------------------------------------


def _scope_salt(scope: tuple[str, str]) -> int:
    digest = hashlib.blake2b("\x1f".join(scope).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def find_duplicates(
    items: Iterable[DedupeItem],
    *,
    threshold: float = DUPLICATE_THRESHOLD,
    progress: Callable[[int, int], None] | None = None,
    check: Callable[[], None] | None = None,
) -> list[DuplicateGroup]:
    """Groups of near-duplicate items, sorted by survivor id; each id in one group at most.

    The survivor of a group is its best-ranked item (ties: the smallest id), and every
    other member was verified directly against it. `progress(done, total)` and `check()`
    are called every `CHUNK` items; `check` may raise to cancel.
    """
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], not {threshold}")
    unique = {item.id: item for item in reversed(list(items))}  # the first of a repeated id
    ranked = sorted(unique.values(), key=lambda it: it.id)
    ranked.sort(key=lambda it: it.rank, reverse=True)  # stable: ties keep the smaller id
    total = len(ranked)

    def tick(done: int) -> None:
        if check is not None:
            check()
        if progress is not None:
            progress(done, total)

    # 1. Shingles and band keys, in survivor order.
    canon, vectors = _Canon(), _Vectors()
    salts: dict[tuple[str, str], int] = {}
    shingles: list[tuple[str, ...]] = []
    keys = array("q")
    kept: list[DedupeItem] = []
    for pos, item in enumerate(ranked):
        if pos % CHUNK == 0:
            tick(pos)
        words = _shingles(item.content, canon)
        if not words:  # nothing to compare: no words at all
            continue
        kept.append(item)
        shingles.append(tuple(words))
        salt = salts.get(item.scope)
        if salt is None:
            salt = salts[item.scope] = _scope_salt(item.scope)
        columns = zip(*map(vectors.__getitem__, words), strict=True)
        keys.extend([hash(tuple(sorted(col)[:ROWS])) ^ salt for col in columns])

    # 2. Candidate pairs: members of a bucket against its first few (best-ranked) members.
    ranked, count = kept, len(kept)
    pairs: set[int] = set()
    for band in range(BANDS):
        if check is not None:
            check()
        first: dict[int, int] = {}
        heads: dict[int, list[int]] = {}
        for pos, key in enumerate(keys[band::BANDS]):
            leader = first.setdefault(key, pos)
            if leader == pos:
                continue
            peers = heads.get(key)
            if peers is None:
                peers = heads[key] = [leader]
            pairs.update([i * count + pos for i in peers])
            if len(peers) < BUCKET_PEERS:
                peers.append(pos)
        del first, heads

    # 3. Stars: each unclaimed item, best first, claims the verified candidates ranked below.
    claimed = bytearray(count)
    groups: list[DuplicateGroup] = []
    by_head = groupby(sorted(pairs), key=lambda code: code // count)
    for visited, (s, codes) in enumerate(by_head):
        if visited % CHUNK == 0 and check is not None:
            check()
        if claimed[s]:
            continue
        head, base, parsed = ranked[s], set(shingles[s]), None
        members: list[int] = []
        sims: list[float] = []
        for code in codes:
            c = code % count
            other = shingles[c]
            common = len(base.intersection(other))
            sim = common / (len(base) + len(other) - common)
            if sim < threshold or claimed[c] or ranked[c].scope != head.scope:
                continue
            parsed = parsed or _parse(head.content, canon)
            verdict = _verify(parsed, _parse(ranked[c].content, canon), round(sim, 4))
            if verdict is not None:
                claimed[c] = 1
                members.append(ranked[c].id)
                sims.append(verdict)
        if members:
            groups.append(DuplicateGroup(head.id, tuple(members), tuple(sims)))
    tick(total)
    groups.sort(key=lambda g: g.survivor)
    return groups
