"""Filer tools (issue 11): `claims init`, `hash-cases`, `pin-log`, `scores`.

Each command computes what to write with the bot's own code paths (the case hash of
`bot.evidence.rules`, the raw-log rule `check_raw_log`, the derived score table of
`bot.bars`), then writes through `bot.tools.files`: atomically, never silently over a file it
does not own, printing what changed.
"""
