"""Retrieval: ranking memories for a task and delivering them to the assistant."""
