"""Memory Curator: long-term memory for AI coding assistants, kept in the open."""

__version__ = "0.1.0"
