"""The parts of the MemoryService façade, one capability per module."""
