"""Small reusable widgets."""
