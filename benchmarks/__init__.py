"""Sightline's benchmarks: `python -m benchmarks` prints medians and ratios."""
