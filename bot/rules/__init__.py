"""The rules: pure judging over typed facts (models, verdicts, bars and statistics, records,
qualification, resolution, review of a diff, evidence and challenge rules, scorers).

Imports the standard library, numpy/scipy, jsonschema and the vocabulary; never git, the
network, the sandbox, the edges or the app.
"""
