"""Spark entry points. Each `jobs/<name>.py` runs as `pagesieve <name> ...` or `spark-submit jobs/<name>.py ...`."""
