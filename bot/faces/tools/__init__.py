"""Filer tools: `claims init`, `hash-cases`, `pin-log`, `scores`.

Each command computes what to write with the bot's own code paths (the case hash of
`bot.rules.evidence`, the raw-log rule `check_raw_log`, the derived score table of
`bot.rules.bars`), then writes through `bot.edges.writes`: atomically, never silently over a file it
does not own, printing what changed.
"""
