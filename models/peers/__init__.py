"""Peer extractors wrapped in the method interface, so jobs and the evaluation treat ours and theirs alike.

Each wraps a registry package, imported when the method is built: a missing one fails at
construction with an ImportError that names the package, not on the first page.
"""
