"""Catalog: benchmarks, their dataset versions, and the models people submit."""
