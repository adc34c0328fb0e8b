"""An attempt folder on disk, as the filer tools find it: its registry and its folder path."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from bot.app.registry import RULES_PATH, Registry, find_root, load_registry
from bot.edges.tree import FolderTree
from bot.vocab.errors import ClaimsError

__all__ = ["AttemptPlace", "locate"]


@dataclass(frozen=True)
class AttemptPlace:
    """An attempt folder: its path on disk, its registry root and path inside it."""

    folder: Path
    root: Path
    inside: str  # attempts/market-NN/<submitter>/<attempt>

    def registry(self) -> Registry:
        return load_registry(FolderTree(self.root))

    def schema_base(self) -> str:
        """schemas/ relative to the attempt folder, for `$schema` links."""
        depth = len(PurePosixPath(self.inside).parts)
        return "/".join([".."] * depth + ["schemas"])


def locate(path: Path, registry: Path | None) -> AttemptPlace:
    """The attempt folder `path` names (the folder, or a file directly in it). Raises
    `ClaimsError` (exit 2) when it is not a folder inside a registry."""
    folder = path.parent if path.is_file() else path
    if not folder.is_dir():
        raise ClaimsError(f"{path} is not an attempt folder (or a file in one)")
    root = registry.resolve() if registry is not None else find_root(folder)
    if root is None:
        raise ClaimsError(
            f"no registry found: {RULES_PATH} is missing at or above {folder}",
            "run inside a registry checkout or pass --registry ROOT",
        )
    try:
        inside = folder.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        raise ClaimsError(f"{folder} is not inside the registry at {root}") from None
    if len(PurePosixPath(inside).parts) != 4 or not inside.startswith("attempts/"):
        raise ClaimsError(
            f"{inside or '.'} is not an attempt folder",
            "name attempts/market-NN/<submitter>/<attempt>/ (or a file in it)",
        )
    return AttemptPlace(folder, root, inside)
