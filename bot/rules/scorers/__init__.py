"""Built-in operator scorers (docs/spec.md §11): pure functions from a scorer's input text to
scores."""
