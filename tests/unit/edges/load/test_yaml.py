"""bot/edges/load/yaml_.py: safe YAML with YAML 1.2 core typing and the line of every field."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from bot.edges.load.yaml_ import load_yaml, parse_yaml
from bot.edges.tree import FolderTree, GitTree, Tree
from bot.vocab.config import Limits
from bot.vocab.document import Document
from bot.vocab.findings import Code, Finding
from tests.support import deny_open, load_file
from tests.unit.gitrepo import at, commit, init_repo

PATH = "attempts/market-01/alice/a1/attempt.yaml"


def parsed(text: str | bytes, limits: Limits = Limits()) -> object:
    """The data of a document that must parse without findings."""
    raw = text.encode() if isinstance(text, str) else text
    document, findings = parse_yaml(raw, PATH, limits)
    assert findings == []
    assert document is not None
    return document.data


def refused(text: str | bytes, limits: Limits = Limits()) -> Finding:
    """The one finding of a document that must be refused."""
    raw = text.encode() if isinstance(text, str) else text
    document, findings = parse_yaml(raw, PATH, limits)
    assert document is None
    assert len(findings) == 1, findings
    assert findings[0].file == PATH
    return findings[0]


# --- yaml-unsafe ---------------------------------------------------------------------------


def test_duplicate_key_names_both_lines() -> None:
    finding = refused("market: 1\ntitle: t\nkind: run\nmarket: 2\n")
    assert finding.code is Code.YAML_UNSAFE
    assert finding.line == 4
    assert "'market'" in finding.message
    assert "line 1" in finding.message


def test_duplicate_key_in_a_nested_mapping() -> None:
    finding = refused("publication:\n  url: https://a\n  doi: x\n  url: https://b\n")
    assert finding.code is Code.YAML_UNSAFE
    assert finding.line == 4
    assert "'url'" in finding.message
    assert "line 2" in finding.message


def test_duplicate_key_quoted_and_plain_are_the_same_key() -> None:
    finding = refused("'1': a\n1: b\n")
    assert (finding.code, finding.line) == (Code.YAML_UNSAFE, 2)


@pytest.mark.parametrize(
    ("text", "line", "word"),
    [
        ("a: 1\nb: &x 2\n", 2, "anchor"),
        ("a: &x\n  b: 1\n", 1, "anchor"),
        ("a: 1\nb: *x\n", 2, "alias"),
        ("a: !foo 1\n", 1, "tag"),
        ("a: 1\nb: !foo {c: 1}\n", 2, "tag"),
        ("a: !!python/object:os.system 1\n", 1, "tag"),
        ("a: !!python/object/apply:os.system ['echo hi']\n", 1, "tag"),
        ("a: !!str 1\n", 1, "tag"),
        ("a: ! 1\n", 1, "tag"),
        ("%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n", 3, "tag"),
        ("a: 1\n<<: {b: 2}\n", 2, "merge"),
        ("a: 1\n---\nb: 2\n", 2, "document"),
        ("? [1, 2]\n: 3\n", 1, "key"),
    ],
)
def test_unsafe_constructs_are_refused_with_their_line(text: str, line: int, word: str) -> None:
    finding = refused(text)
    assert finding.code is Code.YAML_UNSAFE
    assert finding.line == line
    assert word in finding.message


def test_anchor_and_alias_together_refused_at_the_anchor() -> None:
    finding = refused("base: &b {x: 1}\nother: *b\n")
    assert (finding.code, finding.line) == (Code.YAML_UNSAFE, 1)
    assert "&b" in finding.message


def test_one_document_with_markers_is_fine() -> None:
    assert parsed("---\na: 1\n...\n") == {"a": 1}


def test_tag_check_does_not_touch_quoted_scalars() -> None:
    # A '!' inside a quoted scalar is text, not a tag.
    assert parsed("a: '!foo'\nb: \"!!str\"\n") == {"a": "!foo", "b": "!!str"}


def test_nesting_at_the_limit_is_read_one_deeper_is_refused() -> None:
    limits = Limits(max_yaml_depth=3)
    assert parsed("a:\n  b:\n    - 1\n", limits) == {"a": {"b": [1]}}
    assert parsed("[[[1]]]", limits) == [[[1]]]
    finding = refused("x: 1\ny: [[[[1]]]]\n", limits)
    assert (finding.code, finding.line) == (Code.YAML_UNSAFE, 2)
    assert "3" in finding.message


def test_nesting_deeper_than_default_limit() -> None:
    depth = Limits().max_yaml_depth
    assert parsed("[" * depth + "]" * depth) is not None
    finding = refused("[" * (depth + 1) + "]" * (depth + 1))
    assert finding.code is Code.YAML_UNSAFE
    assert str(depth) in finding.message


@pytest.mark.parametrize("depth", [5_000, 50_000])
def test_very_deep_flow_nesting_never_crashes(depth: int) -> None:
    finding = refused("[" * depth + "]" * depth)
    assert (finding.code, finding.line) == (Code.YAML_UNSAFE, 1)


def test_very_deep_block_nesting_is_refused_on_its_line() -> None:
    depth = Limits().max_yaml_depth
    text = "".join("  " * i + f"k{i}:\n" for i in range(depth + 5))
    finding = refused(text)
    assert finding.code is Code.YAML_UNSAFE
    # The mapping that is one level too deep starts on the line of key k{depth}.
    assert finding.line == depth + 1


def test_nesting_past_the_interpreter_limit_is_read_without_recursion() -> None:
    # The builder keeps its own stack: with our depth cap lifted, 5,000 levels (past Python's
    # recursion limit) are read, not a RecursionError, unless the parser has a cap of its own
    # (libyaml bundled with PyYAML >= 6.0.4 stops at 1,000 levels): then it is refused.
    document, findings = parse_yaml(
        b"[" * 5_000 + b"]" * 5_000, "deep.yaml", Limits(max_yaml_depth=1_000_000)
    )
    if findings:
        assert [(f.code, f.line) for f in findings] == [(Code.YAML_UNSAFE, 1)]
        assert "nesting" in findings[0].message
        return
    assert document is not None
    depth, value = 0, document.data
    while isinstance(value, list) and value:
        depth, value = depth + 1, value[0]
    assert depth == 4_999 and value == []


def test_size_cap_is_checked_before_parsing() -> None:
    limits = Limits(max_yaml_bytes=20)
    # Exactly at the cap: parsed (and here refused for another reason, the duplicate key).
    at_cap = refused(b"a: 1\n" * 4, limits)
    assert "duplicate" in at_cap.message
    assert at_cap.line == 2
    # One byte over, with content that is not even UTF-8: the size is what refuses it.
    over = refused(b"\xff" * 21, limits)
    assert over.code is Code.YAML_UNSAFE
    assert over.line is None
    assert "21 bytes" in over.message
    assert "20-byte" in over.message


def test_default_size_cap() -> None:
    cap = Limits().max_yaml_bytes
    raw = b"a: '" + b"x" * (cap - 5) + b"'"
    assert len(raw) == cap
    data = parsed(raw)
    assert isinstance(data, dict)
    assert len(data["a"]) == cap - 5
    finding = refused(raw + b"\n")
    assert finding.code is Code.YAML_UNSAFE
    assert f"{cap}-byte" in finding.message


@functools.cache
def _alias_bomb(size: int) -> bytes:
    """A "billion laughs" document of about `size` bytes: every level repeats the one below."""
    lines = ['lol0: &lol0 "lol"\n']
    total = len(lines[0])
    level = 0
    while total < size:
        level += 1
        aliases = ", ".join([f"*lol{level - 1}"] * 9)
        lines.append(f"lol{level}: &lol{level} [{aliases}]\n")
        total += len(lines[-1])
    return "".join(lines).encode()


def test_alias_bomb_refused_by_the_anchor_rule() -> None:
    bomb = _alias_bomb(2_000_000)
    assert 2_000_000 <= len(bomb) < 2_100_000
    finding = refused(bomb, Limits(max_yaml_bytes=4_000_000))
    assert finding.code is Code.YAML_UNSAFE
    assert finding.line == 1
    assert "anchor &lol0" in finding.message


def test_alias_bomb_refused_by_the_size_cap() -> None:
    bomb = _alias_bomb(2_000_000)
    finding = refused(bomb)
    assert finding.code is Code.YAML_UNSAFE
    assert finding.line is None
    assert f"{len(bomb)} bytes" in finding.message


def test_alias_bomb_aliases_only_is_refused() -> None:
    # Aliases without their anchors (the anchor cut off): still the alias rule, not a crash.
    finding = refused("a: [*x, *x, *x]\n")
    assert (finding.code, finding.line) == (Code.YAML_UNSAFE, 1)
    assert "alias *x" in finding.message


# --- yaml-invalid --------------------------------------------------------------------------


def test_syntax_error_has_its_line() -> None:
    finding = refused("a: 1\nb: [1, 2\nc: 3\n")
    assert finding.code is Code.YAML_INVALID
    assert finding.line == 3
    assert finding.message.startswith("YAML syntax:")


def test_bad_indentation_has_its_line() -> None:
    finding = refused("a:\n  b: 1\n c: 2\n")
    assert (finding.code, finding.line) == (Code.YAML_INVALID, 3)


def test_tab_indentation_is_a_syntax_error() -> None:
    finding = refused("a: 1\nb:\n\tc: 2\n")
    assert (finding.code, finding.line) == (Code.YAML_INVALID, 3)


@pytest.mark.parametrize(
    ("raw", "line"),
    [
        (b"\xff\xfe: 1\n", 1),
        (b"a: 1\nb: 2\nc: \xc3\x28\n", 3),
        (b"a: caf\xe9\n", 1),
        (b"\xef\xbb\xbfa: 1\n\xc3\xa9: \xff\n", 2),
        (b"a: 1\r\nb: \xed\xa0\x80\r\n", 2),
    ],
)
def test_non_utf8_is_invalid_with_its_line(raw: bytes, line: int) -> None:
    finding = refused(raw)
    assert finding.code is Code.YAML_INVALID
    assert "UTF-8" in finding.message
    assert finding.line == line


@pytest.mark.parametrize(
    ("text", "line", "shown"),
    [
        ("a: \x01\n", 1, "U+0001"),
        ("a: 1\nb: x\x00y\n", 2, "U+0000"),
        ("a: 1\r\nb: 2\r\nc: '\x1b[31m'\r\n", 3, "U+001B"),
        ("a: 1\nb: \x7f\n", 2, "U+007F"),
        ("a: '\ufffe'\n", 1, "U+FFFE"),
    ],
)
def test_control_characters_are_invalid_with_their_line(text: str, line: int, shown: str) -> None:
    finding = refused(text)
    assert finding.code is Code.YAML_INVALID
    assert finding.line == line
    assert shown in finding.message


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1.5e999"])
def test_numbers_that_overflow_are_invalid(number: str) -> None:
    finding = refused(f"a: 1\nb: {number}\n")
    assert (finding.code, finding.line) == (Code.YAML_INVALID, 2)
    assert number in finding.message


def test_an_integer_too_long_to_convert_is_invalid() -> None:
    finding = refused("a: " + "9" * 5000 + "\n")
    assert (finding.code, finding.line) == (Code.YAML_INVALID, 1)


def test_bom_is_accepted() -> None:
    assert parsed(b"\xef\xbb\xbfa: 1\n") == {"a": 1}


# --- YAML 1.2 core typing ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("NO", "NO"),
        ("no", "no"),
        ("on", "on"),
        ("Off", "Off"),
        ("yes", "yes"),
        ("y", "y"),
        ("012", 12),
        ("0012", 12),
        ("-7", -7),
        ("+7", 7),
        ("1:30", "1:30"),
        ("2027-06-30", "2027-06-30"),
        ("2027-06-30T09:00:00Z", "2027-06-30T09:00:00Z"),
        ("0x1f", 31),
        ("0o17", 15),
        ("0b101", "0b101"),
        ("1_000", "1_000"),
        ("1.10", 1.1),
        ("1e3", 1000.0),
        (".5", 0.5),
        (".inf", ".inf"),
        (".nan", ".nan"),
        ("~", None),
        ("null", None),
        ("Null", None),
        ("", None),
        ("True", True),
        ("true", True),
        ("FALSE", False),
        ("'012'", "012"),
        ('"true"', "true"),
        ("'null'", "null"),
    ],
)
def test_core_schema_typing(text: str, value: object) -> None:
    data = parsed(f"v: {text}\n")
    assert isinstance(data, dict)
    assert data["v"] == value
    assert type(data["v"]) is type(value)


def test_keys_are_strings() -> None:
    assert parsed("1: a\ntrue: b\n~: c\n") == {"1": "a", "true": "b", "~": "c"}


def test_block_scalars_and_sequences() -> None:
    text = "a: |\n  line one\n  line two\nb:\n  - NO\n  - 012\n"
    assert parsed(text) == {"a": "line one\nline two\n", "b": ["NO", 12]}


# --- line numbers --------------------------------------------------------------------------

NESTED = """\
market: 1
publication:
  url: https://example.org/paper
  evidence_public_at: 2027-01-31T09:00:00Z

adversarial:
  red_teams:
    - name: Alpha
      hours: 40
    - name: Beta
      hours:
        12
"""


def nested() -> Document:
    document, findings = parse_yaml(NESTED.encode(), PATH)
    assert findings == []
    assert document is not None
    return document


def test_lines_of_nested_fields() -> None:
    lines = nested().lines
    assert lines[()] == 1
    assert lines[("market",)] == 1
    assert lines[("publication",)] == 2
    assert lines[("publication", "url")] == 3
    assert lines[("publication", "evidence_public_at")] == 4
    assert lines[("adversarial",)] == 6
    assert lines[("adversarial", "red_teams")] == 7
    assert lines[("adversarial", "red_teams", 0)] == 8
    assert lines[("adversarial", "red_teams", 0, "name")] == 8
    assert lines[("adversarial", "red_teams", 0, "hours")] == 9
    assert lines[("adversarial", "red_teams", 1)] == 10
    # A key's line, not the line its value starts on.
    assert lines[("adversarial", "red_teams", 1, "hours")] == 11


def test_lines_cover_every_field_of_the_data() -> None:
    document = nested()

    def paths(value: object, where: tuple[str | int, ...]) -> list[tuple[str | int, ...]]:
        found = [where]
        if isinstance(value, dict):
            for key, item in value.items():
                found += paths(item, (*where, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                found += paths(item, (*where, index))
        return found

    assert sorted(map(str, paths(document.data, ()))) == sorted(map(str, document.lines))


def test_line_of_falls_back_to_the_nearest_ancestor() -> None:
    document = nested()
    assert document.line_of(("publication", "url")) == 3
    assert document.line_of(("publication", "doi")) == 2
    assert document.line_of(("adversarial", "red_teams", 1, "access")) == 10
    assert document.line_of(("adversarial", "red_teams", 5, "name")) == 7
    assert document.line_of(("nowhere", "at", "all")) == 1
    assert document.line_of() == 1


def test_line_of_in_flow_style() -> None:
    document, findings = parse_yaml(b"a: 1\nb: {c: [x, {d: 2}]}\n", PATH)
    assert findings == []
    assert document is not None
    assert document.line_of(("b", "c", 1, "d")) == 2
    assert document.line_of(("b", "c", 1, "e")) == 2


def test_document_remembers_its_path() -> None:
    assert nested().path == PATH


# --- load_yaml -----------------------------------------------------------------------------


def _tree(root: Path, files: dict[str, bytes]) -> FolderTree:
    for relative, data in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(data)
    return FolderTree(root)


def test_load_yaml_missing_file(tmp_path: Path) -> None:
    document, findings = load_yaml(FolderTree(tmp_path), PATH)
    assert document is None
    assert [(f.code, f.file, f.line) for f in findings] == [(Code.FILE_MISSING, PATH, None)]


def test_load_yaml_reads_a_file(tmp_path: Path) -> None:
    tree = _tree(tmp_path, {PATH: b"a: NO\nb:\n  c: 012\n"})
    document, findings = load_yaml(tree, PATH)
    assert findings == []
    assert document is not None
    assert document.data == {"a": "NO", "b": {"c": 12}}
    assert document.path == PATH
    assert document.line_of(("b", "c")) == 3


def test_load_yaml_reads_a_committed_file(tmp_path: Path) -> None:
    _tree(tmp_path, {PATH: b"a: NO\nb:\n  c: 012\n"})
    repo = init_repo(tmp_path)
    repo.git.add("-A")
    commit(repo, "attempt", at(1))
    (tmp_path / PATH).write_bytes(b"a: changed\n")  # the working tree differs: not read
    document, findings = load_yaml(GitTree(repo, "HEAD"), PATH)
    assert findings == []
    assert document is not None
    assert document.data == {"a": "NO", "b": {"c": 12}}
    assert document.line_of(("b", "c")) == 3


@pytest.mark.parametrize("in_git", [False, True])
def test_load_yaml_size_cap_before_reading(tmp_path: Path, in_git: bool) -> None:
    tree: Tree = _tree(tmp_path, {PATH: b"\xff" * 101})
    if in_git:
        repo = init_repo(tmp_path)
        repo.git.add("-A")
        commit(repo, "attempt", at(1))
        tree = GitTree(repo, "HEAD")
    document, findings = load_yaml(tree, PATH, Limits(max_yaml_bytes=100))
    assert document is None
    assert [(f.code, f.line) for f in findings] == [(Code.YAML_UNSAFE, None)]
    assert "101 bytes" in findings[0].message


def test_load_yaml_a_directory_is_not_readable(tmp_path: Path) -> None:
    (tmp_path / PATH).mkdir(parents=True)
    document, findings = load_yaml(FolderTree(tmp_path), PATH)
    assert document is None
    assert [(f.code, f.file) for f in findings] == [(Code.FILE_UNREADABLE, PATH)]


def test_load_yaml_refuses_a_symlink(tmp_path: Path) -> None:
    tree = _tree(tmp_path, {"secret.yaml": b"a: 1\n"})
    (tmp_path / PATH).parent.mkdir(parents=True)
    (tmp_path / PATH).symlink_to(tmp_path / "secret.yaml")
    document, findings = load_yaml(tree, PATH)
    assert document is None
    assert [(f.code, f.file) for f in findings] == [(Code.SYMLINK, PATH)]


def test_load_yaml_refusals_carry_the_path_in_the_tree(tmp_path: Path) -> None:
    tree = _tree(tmp_path, {"shown/attempt.yaml": b"a: &x 1\n"})
    document, findings = load_yaml(tree, "shown/attempt.yaml")
    assert document is None
    assert [(f.code, f.file, f.line) for f in findings] == [
        (Code.YAML_UNSAFE, "shown/attempt.yaml", 1)
    ]


@pytest.mark.parametrize(
    "raw",
    [b"", b"\n\n  \n", b"# only a comment\n", b"---\n", b"--- # empty\n...\n", b"\xef\xbb\xbf"],
    ids=["no bytes", "blank lines", "comment", "bare ---", "--- and ...", "BOM"],
)
def test_a_file_without_content_is_file_empty(raw: bytes) -> None:
    document, findings = parse_yaml(raw, PATH)
    assert document is None
    assert [(f.code, f.file, f.line) for f in findings] == [(Code.FILE_EMPTY, PATH, None)]
    assert findings[0].message == "the file is empty: no YAML content"


@pytest.mark.parametrize("raw", [b"null\n", b"~\n", b"''\n", b"--- ~\n", b"{}\n", b"[]\n"])
def test_an_explicit_empty_value_is_content_not_an_empty_file(raw: bytes) -> None:
    """`null`, `~`, '' and empty collections are values: the schema judges them, not the loader."""
    document, findings = parse_yaml(raw, PATH)
    assert findings == []
    assert document is not None
    assert document.data in (None, "", {}, [])


# --- YAML 1.2 core typing ------------------------------------------------------------------


def test_load_yaml_empty_file(tmp_path: Path) -> None:
    file = tmp_path / "attempt.yaml"
    file.write_bytes(b"# nothing here yet\n")
    document, findings = load_file(load_yaml, file, PATH)
    assert document is None
    assert [(f.code, f.file, f.line) for f in findings] == [(Code.FILE_EMPTY, PATH, None)]


def test_load_yaml_refusals_carry_the_display_path(tmp_path: Path) -> None:
    file = tmp_path / "attempt.yaml"
    file.write_bytes(b"a: &x 1\n")
    document, findings = load_file(load_yaml, file, "shown/attempt.yaml")
    assert document is None
    assert [(f.code, f.file, f.line) for f in findings] == [
        (Code.YAML_UNSAFE, "shown/attempt.yaml", 1)
    ]


def test_load_yaml_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that exists but cannot be opened is `file-unreadable`, not `file-missing`. The
    tests run as root, where chmod 000 still reads: the open is made to fail instead."""
    file = tmp_path / "attempt.yaml"
    file.write_bytes(b"a: 1\n")
    deny_open(monkeypatch, file)
    document, findings = load_file(load_yaml, file, PATH)
    assert document is None
    assert [(f.code, f.file, f.line) for f in findings] == [(Code.FILE_UNREADABLE, PATH, None)]
    assert findings[0].message == "cannot read: Permission denied"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("a: 1\nb", 2),
        ("a: 1\nb\n", 2),
        ("a:\n  b: 1\n  c", 3),
        ("market: 3\nkind: run\nt", 3),
    ],
)
def test_a_syntax_error_at_the_end_names_a_line_of_the_file(text: str, line: int) -> None:
    """Found by fuzzing (tests/adversarial/test_fuzz.py): a file cut off inside a key was
    refused on the line after its last one (libyaml marks the end of input there), a line no
    editor shows and no GitHub annotation can point at. The key's own line is named instead."""
    finding = refused(text)
    assert finding.code is Code.YAML_INVALID
    assert finding.line == line


def test_a_syntax_error_counts_lines_as_yaml_does() -> None:
    """CR and NEL break lines in YAML too: a mark on a real line is kept."""
    assert refused("a: 1\rb: [\rc: 2\r}").line == 4
    assert refused("a: 1\x85b\x85").line == 2


def test_integers_beyond_2_53_are_refused_with_their_field() -> None:
    """As in JSONL (bot/vocab/values.py): no later stage can carry them."""
    raw = b"ok: 9007199254740991\nrun:\n  seeds:\n  - 1\n  - 0x20000000000000\n"
    document, findings = parse_yaml(raw, PATH)
    assert document is None
    assert findings == [
        Finding(
            Code.YAML_INVALID,
            "run.seeds[1]: integer 9007199254740992 is outside ±2**53-1 (I-JSON)",
            PATH,
            5,
        )
    ]
