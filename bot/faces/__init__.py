"""The faces: entry points (the CLI, GitHub responders and publishing, scheduled jobs, the
website, filer tools, the demo) and the renderers of reports.

Each calls the app; none reaches into another face's internals.
"""
