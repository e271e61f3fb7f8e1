"""The methods: pure Python (+ torch for the neural ones). Nothing here imports Spark."""
