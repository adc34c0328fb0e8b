"""The edges: where the bot meets the world (file trees and git history, loaders of YAML and
JSONL, fetching, released data, the sandbox, archives, the GitHub gateway, atomic writes).

Imports the vocabulary and its own libraries; never the rules' judging, the app or a face.
"""
