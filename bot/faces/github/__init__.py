"""The registry on GitHub (docs/spec.md §10): the port the bot asks GitHub through (`port.py`), the
one PyGithub gateway that implements it (`gateway.py`), and what is built on them: publishing
verdicts, path rules and filer identity, the `/judge` responder, and the Actions entry points.
"""
