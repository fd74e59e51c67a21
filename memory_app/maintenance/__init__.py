"""Maintenance jobs: consolidation, summarization, re-index, and their scheduling."""
