"""The demo registry, shipped inside the bot as the package `bot.examples` for `claims demo`.

pyproject.toml maps `bot.examples` to this folder, so it stays the one source (generate.py
writes it) and a plain install carries what the demo reads. This file makes the folder a
regular package: setuptools' editable installs cannot import a namespace package that
package-dir maps outside its parent (https://github.com/pypa/setuptools/issues/4943).
"""
