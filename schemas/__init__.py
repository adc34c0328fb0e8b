"""The registry's JSON Schemas, shipped inside the bot as the package `bot.schemas`.

pyproject.toml maps `bot.schemas` to this folder, so it stays the one source (filers' editors
follow the files' `$schema` links here) and a plain install carries it. This file makes the
folder a regular package: setuptools' editable installs cannot import a namespace package that
package-dir maps outside its parent (https://github.com/pypa/setuptools/issues/4943).
"""
