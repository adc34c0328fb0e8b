"""Settings the bot itself owns (not the registry's rules), read once at the edge.

Thresholds that decide evidence or verdicts live in `shared-rules/common-v1.yaml` and the market
contracts, never here. These are safety caps on what the bot is willing to read.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits"]


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps checked before parsing, so a hostile file costs bounded time and memory."""

    # Every YAML file the registry holds is a short, hand-written document.
    max_yaml_bytes: int = 1_000_000
    # Nesting deeper than this is refused before PyYAML's recursive composer overflows.
    max_yaml_depth: int = 64
    # JSON nested deeper than this is refused: later stages (RFC 8785, schemas) recurse.
    max_json_depth: int = 64
    # One JSONL record (a case or a trial); a 48 MiB line cost 867 MiB in `json`
    # (docs/spec.md §4.2).
    max_jsonl_line_bytes: int = 1_000_000
    max_jsonl_bytes: int = 512 * 1024 * 1024
    # Arrays and objects, and values of any kind (containers included, keys not), in one JSONL
    # record and in one file. Counted on the bytes before `json` builds anything: 1 MB lines
    # of empty lists (`[[], [], ...]`, 3 bytes each, ~64 bytes each once built) made a 22 MB
    # file cost ~675 MB (docs/spec.md §4.2). An honest trial holds 2-3 containers and ~10-20
    # values, a frozen case a few more; so these allow over 1,000,000 trials (or cases) a
    # file (bench/verify_scale.py runs 1M of each), and records with far more
    # structure than evidence needs.
    max_jsonl_record_containers: int = 10_000
    max_jsonl_record_values: int = 100_000
    max_jsonl_file_containers: int = 4_000_000
    max_jsonl_file_values: int = 20_000_000
    # A path in the registry, in UTF-8 bytes from its root: every consumer writes files at
    # these paths (a `git checkout` of main in every job, the adapter rerun's copy of its
    # code), and over PATH_MAX (Linux 4096, macOS 1024) that fails for the whole job, not
    # the attempt: the folder scan refuses a longer one (attempt-location).
    max_path_bytes: int = 1024
    # An attempt folder: files and bytes per file (raw-log excerpts are 1 MB each).
    max_attempt_files: int = 200
    max_attempt_file_bytes: int = 600 * 1024 * 1024
    # A wrapped attempt's released data: bytes per file. The archive's cap on one file
    # (max_archived_pin_bytes, below): a released file the close could not carry would leave
    # the evidence a counting rerun read on its filer's server alone (docs/spec.md §10.6).
    max_released_bytes: int = 1024 * 1024 * 1024
    # All of one wrapped attempt's released data, in bytes (bot/edges/released.py): the rerun job
    # writes each file twice (the cache and the inputs copy), and a full disk there is a
    # machine error, recorded as nothing, which blocks the market on every day: so a filer's
    # files must fit the runner's 14 GB with room to spare (100 files of 2 GiB each must
    # not be allowed).
    max_released_total_bytes: int = 3 * 1024 * 1024 * 1024
    # A wrapped attempt's paper's freeze (paper_freeze.url, with --fetch-raw-logs).
    max_paper_freeze_bytes: int = 256 * 1024 * 1024
    # The close's snapshot archive carries each counting attempt's fetched raw log and paper's
    # freeze (bot/app/pins.py, docs/archives.md): at most this many bytes a file, and all of them
    # in one market's archive. A pin past a cap is listed in the archive's manifest as not
    # carried, with the cap, and named in the close job's report (a warning). The close job's
    # runner holds the fetched files and the tarball on its 14 GB disk.
    max_archived_pin_bytes: int = 1024 * 1024 * 1024
    max_archived_pins_bytes: int = 4 * 1024 * 1024 * 1024
    # All the files one close run's pin jobs keep (the pin plan's `keep`, planned market by
    # market within the caps above): the close job downloads every one of them onto one
    # runner's 14 GB (13 GiB) disk, and the tarballs carrying them stay there for the
    # attestation (another copy, as large when the files do not compress): 5 GiB of files and
    # 5 GiB of tarballs leave about 3 GiB for the checkout, the bot and the rerun results.
    max_kept_pins_bytes: int = 5 * 1024 * 1024 * 1024
    # --fetch-raw-logs: seconds to connect and between bytes, and for the whole download.
    fetch_timeout: float = 20.0
    fetch_deadline: float = 600.0
    # All of one wrapped attempt's released data, every file and every retry
    # (bot/edges/released.py):
    # with the sandbox's two runs (2 minutes each) it is an attempt's worst case, which the
    # scheduled rerun job starts only while it fits the job's budget
    # (bot/faces/jobs/rerun_batches.py), so a filer's slow server costs its attempt a recorded
    # finding, never the job.
    released_deadline: float = 900.0
    # Downloads (raw logs, released data) go to public addresses only: loopback, private,
    # link-local, multicast, reserved and unspecified ones are refused (bot/edges/fetch.py). These
    # exact addresses are the exception; empty for the bot, set only by tests whose server
    # listens on this machine (e.g. {"127.0.0.1"}). There is no switch that turns the check off.
    fetch_allowed_addresses: frozenset[str] = frozenset()
