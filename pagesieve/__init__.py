"""pagesieve: web page cleaning and structured extraction, from one laptop to a Spark cluster.

This folder is the foundation every layer imports: the table schemas (`pagesieve.schemas`) and the
typed settings (`pagesieve.settings`). It imports nothing above it. The design-card folders (jobs/,
udfs/, models/, ...) are mapped into this namespace by setup.py (`pip install -e .`).
"""

__version__ = "0.1.0"
