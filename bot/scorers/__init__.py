"""Built-in operator scorers (SPEC 11): pure functions from a scorer's input text to scores."""
