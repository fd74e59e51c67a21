"""Qt item models over plain records."""
