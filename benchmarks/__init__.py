"""Performance and quality benchmarks: `python -m benchmarks` (or `make bench`)."""
