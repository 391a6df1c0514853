"""Benchmarks: speed, exact-solver coverage and ratio tables (they print figures)."""
