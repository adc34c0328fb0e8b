"""Scheduled jobs: entry points that compose the archive, git and GitHub (STYLE 1)."""
