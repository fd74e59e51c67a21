"""The main window's views, one module each."""
