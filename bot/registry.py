"""The registry on disk: its root, shared rules, market contracts and challenge runs.

Shared rules and markets are maintainers' files. A problem in them is not the filer's fault:
it is reported as `registry-invalid` and makes `claims verify` exit with code 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bot.config import Limits
from bot.errors import ClaimsError
from bot.findings import Code, Finding
from bot.load.document import Document
from bot.load.yaml_ import load_yaml
from bot.models import Market, SharedRules

__all__ = [
    "RULES_PATH",
    "Registry",
    "attempt_folders",
    "find_root",
    "market_path",
    "open_registry",
]

RULES_PATH = "shared-rules/common-v1.yaml"


def market_path(number: int) -> str:
    """`markets/market-NN.yaml`, NN at least two digits."""
    return f"markets/market-{number:02d}.yaml"


@dataclass
class Registry:
    """A registry checkout: rules loaded once, markets and runs read on first use."""

    root: Path
    rules: SharedRules
    limits: Limits = Limits()
    _markets: dict[int, tuple[Market | None, list[Finding]]] = field(default_factory=dict)

    def market(self, number: int) -> tuple[Market | None, list[Finding]]:
        """The contract of market `number`, or None with `registry-invalid` findings.

        A missing contract returns (None, []): the caller reports `market-unknown`.
        """
        if number not in self._markets:
            path = market_path(number)
            file = self.root / path
            if not file.is_file() or file.is_symlink():
                self._markets[number] = (None, [])
            else:
                document, findings = load_yaml(file, path, self.limits)
                if document is None:
                    self._markets[number] = (None, _as_registry(findings))
                else:
                    self._markets[number] = Market.from_document(document, self.rules, number)
        return self._markets[number]

    def markets(self) -> tuple[list[Market], list[Finding]]:
        """Every contract under markets/ (market-NN.yaml), and `registry-invalid` findings."""
        found: list[Market] = []
        findings: list[Finding] = []
        for file in sorted((self.root / "markets").glob("market-*.yaml")):
            number = file.stem.removeprefix("market-")
            # isascii: "²".isdigit() is True, but int("²") raises ValueError.
            if (
                not (number.isascii() and number.isdigit())
                or file.name != market_path(int(number)).split("/")[1]
            ):
                findings.append(
                    Finding(
                        Code.REGISTRY_INVALID,
                        "name contracts markets/market-NN.yaml (NN: two or more digits)",
                        f"markets/{file.name}",
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
        path = f"challenge-runs/{run}/run.yaml"
        return load_yaml(self.root / path, path, self.limits)


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


def open_registry(root: Path | None, start: Path, limits: Limits = Limits()) -> Registry:
    """Load the registry at `root` (or found above `start`).

    Raises `ClaimsError` when there is no registry or its shared rules are invalid.
    """
    found = root.resolve() if root is not None else find_root(start)
    if found is None or not (found / RULES_PATH).is_file():
        raise ClaimsError(
            f"no registry found: {RULES_PATH} is missing"
            + (f" under {root}" if root is not None else f" at or above {start}"),
            "run inside a registry checkout or pass --registry ROOT",
        )
    document, findings = load_yaml(found / RULES_PATH, RULES_PATH, limits)
    rules = None
    if document is not None:
        rules, findings = SharedRules.from_document(document)
    if rules is None:
        details = "; ".join(f"{f.location()}: {f.message}" for f in findings[:5])
        raise ClaimsError(
            f"the shared rules are invalid: {details}",
            "a maintainer must fix shared-rules/common-v1.yaml",
        )
    return Registry(found, rules, limits)


def attempt_folders(root: Path, paths: list[Path]) -> list[Path]:
    """The attempt folders named by `paths` (folders holding attempt.yaml, or found below).

    A folder three levels below attempts/ is an attempt folder even without attempt.yaml,
    so a missing attempt.yaml is reported rather than skipped. Links are not followed.
    Raises `ClaimsError` for a path that does not exist.
    """
    found: list[Path] = []
    for path in paths or [root / "attempts"]:
        if not path.exists():
            raise ClaimsError(f"{path} does not exist")
        if path.is_symlink() or not path.is_dir():
            raise ClaimsError(f"{path} is not a folder", "name an attempt folder or attempts/")
        pending = [path]
        while pending:
            folder = pending.pop()
            if _is_attempt_folder(root, folder):
                found.append(folder)
                continue
            pending += sorted(
                (child for child in folder.iterdir() if child.is_dir() and not child.is_symlink()),
                reverse=True,
            )
    unique = sorted({folder.resolve(): folder for folder in found}.values())
    return unique


def _is_attempt_folder(root: Path, folder: Path) -> bool:
    if (folder / "attempt.yaml").exists():
        return True
    try:
        parts = folder.resolve().relative_to(root.resolve()).parts
    except ValueError:
        return False
    return len(parts) == 4 and parts[0] == "attempts"
