"""Challenge runs (docs/spec.md §11): a hidden suite an operator runs and scores.

`challenge-runs/<run>/` holds `run.yaml`, the hash-only `freeze-cases.jsonl`, and per attempt
the operator's score file `scores/<submitter>/<attempt>/results.jsonl` (plus, for a built-in
scorer, the scorer's inputs beside it). `read.py` reads a run from a tree (the shell),
`judge.py` judges it (pure), `rules.py` holds the checks an attempt of the run also needs,
and `scorers.py` the built-in scorers the bot recomputes. docs/challenge-runs.md.
"""
