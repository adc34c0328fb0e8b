"""The registry website (`claims site`): static pages, charts and JSON endpoints built from
the registry's files and the bot's reports.

model.py (pure: what each page shows) -> render.py (Jinja2 templates, matplotlib SVGs) ->
publish.py (a new sibling folder, swapped in whole); build.py gathers the inputs; cli.py is
the command.
"""
