"""Contradictions between memories: cheap candidates, a judge, conflict records."""
