"""pandas UDFs: build a method once per Python worker, run it over Arrow batches."""
