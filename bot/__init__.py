"""The AI Safety Claims registry bot."""

__version__ = "0.1.0"
