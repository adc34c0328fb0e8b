"""The app: open a workspace, gather facts once, judge them with the rules, and return typed
reports (`api.verify_registry`, `api.resolve_registry`, `api.explain_registry`), with the
cache, reruns, pins and resolution records those need.

The one layer every face calls; imports the rules, the edges and the vocabulary.
"""
