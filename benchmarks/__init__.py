"""opslib benchmarks: `make bench` (or `python -m benchmarks --help`)."""
