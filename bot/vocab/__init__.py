"""The vocabulary: values and types every layer shares (findings and their codes, errors,
dates and timestamps, names, limits, documents with their line numbers, JSON values).

Imports only the standard library and small codecs; nothing else in `bot`.
"""
