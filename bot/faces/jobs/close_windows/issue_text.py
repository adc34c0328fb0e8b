"""The issue the close opens for a market: its title and body, from the market's record."""

from __future__ import annotations

from bot.app.resolutions import ResolutionRecord, record_path
from bot.faces.jobs.plan import MarketPlan

__all__ = ["issue_text"]


def issue_text(
    market: MarketPlan, key: str, detail: str, record: ResolutionRecord
) -> tuple[str, str]:

    data = record.data
    number = market.market
    if key.endswith("registry-warning"):
        title = f"Market {number}: a copy of {market.tag} is missing"
        body = (
            f"The scheduled job found a problem with the snapshot of market {number}: {detail}.\n\n"
            f"The market resolved {record.outcome} ({record_path(number)}). It is annulled only"
            f" if neither {market.tag} nor its archive copy exists after"
            f" {data['dates']['annul_on']}; the job makes the missing copy again."
        )
        return title, body
    if record.outcome == "ANNULLED":
        title = f"Market {number} annulled: {market.tag} and its archive copy are missing"
    else:
        title = f"Market {number} resolved {record.outcome}"
    archive = data.get("archive") or {}
    lines = [
        f"**{record.outcome}**: {data['why']}",
        "",
        f"- record: `{record_path(number)}`",
        f"- snapshot: `{market.tag}`"
        + (f" at `{record.commit}`" if record.commit else " (no tag)"),
        f"- archive: {archive.get('doi') or archive.get('id') or 'none'}"
        + (f" ({archive.get('checksum')})" if archive else ""),
        f"- resolved as of {data['as_of']} by claims {data['bot_version']}",
        "",
        "| attempt | evidence | status | outcome |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {a['attempt']} | {a['evidence']} | {a['status'] or '-'} | {a['outcome'] or '-'} |"
        for a in data["attempts"]
    ] or ["| (none) | | | |"]
    if data["warnings"]:
        lines += ["", "Warnings:", *(f"- {w}" for w in data["warnings"])]
    return title, "\n".join(lines)
