"""The registry in a tree: its shared rules, market contracts, challenge runs and attempts.

Shared rules and markets are maintainers' files. A problem in them is not the filer's fault:
it is reported as `registry-invalid` and makes `claims verify` exit with code 2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from bot.edges.load.yaml_ import load_yaml
from bot.edges.tree import Tree, TreeError
from bot.rules.models import Market, SharedRules, market_path
from bot.vocab.config import Limits
from bot.vocab.document import Document
from bot.vocab.errors import ClaimsError
from bot.vocab.findings import Code, Finding

if TYPE_CHECKING:
    from bot.rules.challenge.judge import RunJudged
__all__ = [
    "RULES_PATH",
    "Registry",
    "find_root",
    "load_registry",
]

RULES_PATH = "shared-rules/common-v1.yaml"
_MARKET_FILE = re.compile(r"\Amarket-(\d{2,})\.yaml\Z")


@dataclass
class Registry:
    """A registry's tree: rules loaded once, markets and runs read on first use.

    `tree` holds the attempts being judged. The maintainers' files (shared rules, market
    contracts, challenge runs) are read from `trusted` when given: for a pull request, the
    base branch's tree, so a PR that edits a contract, or was branched before a contract
    changed, is judged by the contract on the base branch.
    """

    tree: Tree
    rules: SharedRules
    limits: Limits = Limits()
    trusted: Tree | None = None
    _markets: dict[int, tuple[Market | None, list[Finding]]] = field(default_factory=dict)
    # Challenge runs as judged from `contracts`, once each (bot.app.gather.challenge_run).
    runs: dict[str, RunJudged] = field(default_factory=dict)

    @property
    def contracts(self) -> Tree:
        """The tree the shared rules, markets and challenge runs are read from."""
        return self.trusted if self.trusted is not None else self.tree

    def market(self, number: int) -> tuple[Market | None, list[Finding]]:
        """The contract of market `number`, or None with `registry-invalid` findings.

        A missing contract returns (None, []): the caller reports `market-unknown`.
        """
        if number not in self._markets:
            path = market_path(number)
            entry = self.contracts.entry(path)
            if entry is None or entry.kind != "file":
                self._markets[number] = (None, [])
            else:
                document, findings = load_yaml(self.contracts, path, self.limits)
                if document is None:
                    self._markets[number] = (None, _as_registry(findings))
                else:
                    self._markets[number] = Market.from_document(document, self.rules, number)
        return self._markets[number]

    def markets(self) -> tuple[list[Market], list[Finding]]:
        """Every contract under markets/ (market-NN.yaml), and `registry-invalid` findings."""
        found: list[Market] = []
        findings: list[Finding] = []
        try:
            children = self.contracts.children("markets")
        except TreeError:
            return [], []
        for child in children:
            if not (child.name.startswith("market-") and child.name.endswith(".yaml")):
                continue
            match = _MARKET_FILE.match(child.name)
            # isascii: "²".isdigit() is True, but int("²") raises ValueError.
            number = match.group(1) if match else ""
            if not (number.isascii() and number.isdigit()) or child.path != market_path(
                int(number)
            ):
                findings.append(
                    Finding(
                        Code.REGISTRY_INVALID,
                        "name contracts markets/market-NN.yaml (NN: two or more digits)",
                        child.path,
                    )
                )
                continue
            market, problems = self.market(int(number))
            findings += problems
            if market is not None:
                found.append(market)
        return found, findings

    def challenge_run(self, run: str) -> tuple[Document | None, list[Finding]]:
        """`challenge-runs/<run>/run.yaml`, or None with findings."""
        return load_yaml(self.contracts, f"challenge-runs/{run}/run.yaml", self.limits)

    def attempt_folders(self, paths: list[str] | None = None) -> list[str]:
        """The attempt folders at or below `paths` (default: attempts/), sorted.

        A folder holding attempt.yaml, or any folder three levels below attempts/ (so a
        missing attempt.yaml is reported rather than skipped). Links are not followed.
        Raises `ClaimsError` for a path that is not a folder of the tree.
        """
        found: set[str] = set()
        for start in paths if paths is not None else ["attempts"]:
            entry = self.tree.entry(start)
            if entry is None:
                if start == "attempts" and paths is None:
                    continue
                raise ClaimsError(f"{start} does not exist in the {self.tree.label}")
            if entry.kind != "folder":
                raise ClaimsError(f"{start} is not a folder", "name an attempt folder or attempts/")
            pending = [entry.path]
            while pending:
                folder = pending.pop()
                if _is_attempt_folder(self.tree, folder):
                    found.add(folder)
                    continue
                try:
                    pending += [c.path for c in self.tree.children(folder) if c.kind == "folder"]
                except TreeError:
                    continue
        return sorted(found)


def _is_attempt_folder(tree: Tree, folder: str) -> bool:
    if tree.entry(f"{folder}/attempt.yaml") is not None:
        return True
    parts = PurePosixPath(folder).parts
    return len(parts) == 4 and parts[0] == "attempts"


def _as_registry(findings: list[Finding]) -> list[Finding]:
    return [
        Finding(Code.REGISTRY_INVALID, f"{f.code}: {f.message}", f.file, f.line) for f in findings
    ]


def find_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` that holds shared-rules/common-v1.yaml."""
    for candidate in (start.resolve(), *start.resolve().parents):
        if (candidate / RULES_PATH).is_file():
            return candidate
    return None


def load_registry(tree: Tree, limits: Limits = Limits(), trusted: Tree | None = None) -> Registry:
    """The registry in `tree`, its shared rules loaded (from `trusted` when given).

    Raises `ClaimsError` when the tree has no shared rules or they are invalid.
    """
    contracts = trusted if trusted is not None else tree
    if contracts.entry(RULES_PATH) is None:
        raise ClaimsError(
            f"no registry found: {RULES_PATH} is missing in the {contracts.label}",
            "run inside a registry checkout or pass --registry ROOT",
        )
    document, findings = load_yaml(contracts, RULES_PATH, limits)
    rules = None
    if document is not None:
        rules, findings = SharedRules.from_document(document)
    if rules is None:
        details = "; ".join(f"{f.location()}: {f.message}" for f in findings[:5])
        raise ClaimsError(
            f"the shared rules are invalid: {details}",
            "a maintainer must fix shared-rules/common-v1.yaml",
        )
    return Registry(tree, rules, limits, trusted)
