"""Extractors turn a transcript into candidate memory items."""

from memory_app.extract.base import CONFIDENCE_THRESHOLD, ExtractedItem, Extractor

__all__ = ["CONFIDENCE_THRESHOLD", "ExtractedItem", "Extractor"]
