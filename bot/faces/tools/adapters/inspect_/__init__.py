"""`claims adapt inspect LOG --out DIR`: an Inspect (UK AISI `inspect_ai`) log -> evidence files.

Writes `freeze-cases.jsonl`, `trials.jsonl` and a `freeze.yaml` stub (docs/spec.md §4 and §9). The
same log always gives the same bytes, and two runs of the same eval give the same freeze-cases, so a
freeze written from one run can be checked against the trials of another.

Reading (the log is untrusted):
- The format is told by the file's first bytes, not its name: a zip is an `.eval` log, anything
  else is read as a `.json` log (a gzip file is refused with a hint).
- `.json` logs are read with the standard library, whole, up to `InspectLimits.max_json_bytes`;
  duplicate keys are refused; NaN and Infinity are accepted (Inspect writes them in metrics).
- `.eval` logs are zips. Only `header.json` and `samples/*.json` are read (the last member of a
  name wins, as in Inspect and `zipfile`). Members may be stored, deflated or zstd-compressed
  (inspect-ai 0.3.285 writes zstd); zstd needs the `zstandard` module (the `inspect`
  extra) and is decompressed in bounded chunks, across frames, and checked against the
  member's size and CRC. Refused before anything is decompressed: more than `max_members`
  members, a declared total over `max_total_bytes`, unsafe member names (absolute, `..`,
  backslashes, drive letters, NUL), encrypted members and other compression methods. A member
  over `max_member_bytes` is refused, whatever its header says.
- Only finished logs are adapted (status `success`, not invalidated), and every sample the
  log's dataset lists must be present in every epoch: a case is never silently missing.
Every problem raises `InspectLogError` (a `ClaimsError`: the CLI exits 2 with the message).

Mapping, one frozen case and exactly one trial per sample id:
- `case_id` is `str(id)`; it must be a registry id (letters, digits, `._:/-`, at most 200
  characters), and an int id and a string id must not give the same case_id.
- Cases and trials are sorted by sample id: integer ids first, in numeric order, then string
  ids in natural order (runs of ASCII digits compare as numbers, the rest by code point; ties,
  such as "q02" and "q2", by the plain string): 1, 2, 10, "q2", "q10".
- `content` is the sample's `input` and `target`, and its `choices`, `description`,
  `metadata`, `files` and `setup` when present and not empty, in RFC 8785 canonical key order.
  The metadata is the dataset's, from the sample's `sample_init` event when the log has one:
  the sample's own `metadata` field is the task state's after the solvers ran (a solver may
  change it), and other fields are read from the sample itself. Left out, because they
  change from run to run or machine to machine: the sample's `uuid`, the `id` of every chat
  message in `input`, `sandbox`, and everything the run produced (messages, output, scores,
  events, timestamps, usage). Image data in chat inputs appears as Inspect's content-addressed
  `attachment://<hash>` references, which are stable. All epochs of a sample must agree on it.
  `sha256` is `bot.rules.evidence.hashing.case_hash(content)`.
- `family` is the task name, or with `--family-field F` the string `metadata[F]` of every
  sample; `kind` is `metadata["kind"]` when it is a string of 1-200 characters, else "task";
  `public` is `{"sample_id": <the id as the log gives it, int or string>}`.
- A trial's `system` is the eval's model, `started_at` the earliest start of its epochs (else
  the eval's start, else its creation), in UTC with a Z; `trajectory` is
  `<eval_id>:<case_id>` (a hash of the case id when that is over 200 characters), unique per
  trial and the same on every adaptation of the log; `evaluator` is the scorer's name;
  `attack_family` is null.
- `result` is `{"verdict", "score", "values", "epochs", "error"}`. Each epoch is judged from the
  chosen scorer's value: "C" and true pass, "I", "P" (partial), "N" (no answer) and false fail,
  a number passes when it is 1 and fails when it is in [0, 1); other values are refused. An
  epoch that errored, or has no score from the scorer, is an error epoch. Epochs reduce as
  the freeze says: `all-must-pass` (the default, docs/spec.md §9: a case fails if any epoch fails)
  gives "fail" if any epoch failed, else "error" if any errored, else "pass"; `first` takes epoch 1.
  `score` is the reduced number (epoch 1's, or the lowest over the scored epochs; null when
  the verdict is "error"), `values` the raw value of each epoch in order (null: none),
  `epochs` their count, `error` the first epoch error's message (null: none). Errored samples
  are recorded, never dropped. Inspect's own epoch reducers are not used: they leave errored
  epochs out.
- `freeze.yaml` is a stub the filer must review: `method` from the log's solver plan,
  `code_commit` from the log's git revision when it is a full commit (Inspect records a short
  one: then 40 zeros, which the filer must replace, as a comment says), `scorer`, `frozen_at`
  (the eval's creation time) and `epochs`.
Before anything is written, the files are read back with the verifier's own loader and rules
(`parse_jsonl`, `check_cases`, `check_trials`, the freeze schema); evidence they would refuse
is an `InspectLogError`, so what this adapter writes, `claims verify` accepts.
"""

from __future__ import annotations

# Building the CLI's parser imports this package: the evidence modules (bot.rules.evidence:
# jsonschema, scipy) and the writers (bot.edges.dump: PyYAML) are imported where they are used.
from bot.faces.tools.adapters.inspect_.cli import add_parser, run
from bot.faces.tools.adapters.inspect_.convert import (
    DEFAULT_EPOCHS,
    EPOCH_MODES,
    adapt_inspect,
    convert,
)
from bot.faces.tools.adapters.inspect_.eval_zip import EXTRA_HINT
from bot.faces.tools.adapters.inspect_.fields import (
    FieldMap,
    Source,
    ValueMap,
    parse_source,
    parse_value_map,
)
from bot.faces.tools.adapters.inspect_.files import Adapted
from bot.faces.tools.adapters.inspect_.freeze import PLACEHOLDER_COMMIT
from bot.faces.tools.adapters.inspect_.limits import InspectLimits
from bot.faces.tools.adapters.inspect_.stubs import stub_values
from bot.faces.tools.adapters.inspect_.values import InspectLogError

__all__ = [
    "DEFAULT_EPOCHS",
    "EPOCH_MODES",
    "EXTRA_HINT",
    "PLACEHOLDER_COMMIT",
    "Adapted",
    "FieldMap",
    "InspectLimits",
    "InspectLogError",
    "Source",
    "ValueMap",
    "adapt_inspect",
    "add_parser",
    "convert",
    "parse_source",
    "parse_value_map",
    "run",
    "stub_values",
]
