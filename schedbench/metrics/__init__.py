"""Exact metrics of schedules (``fractions.Fraction``; floats only for display)."""
