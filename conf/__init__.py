"""Packaged defaults and domain knowledge as data: one commented TOML file per component."""
