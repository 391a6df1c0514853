"""Seeded, reproducible instance generators, one module per family."""
