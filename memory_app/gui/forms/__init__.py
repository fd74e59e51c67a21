"""Python compiled from the Designer forms in ui/ by `make forms` (pyside6-uic).

Generated: do not edit by hand; tests/gui/test_forms.py checks they match ui/*.ui.
"""
