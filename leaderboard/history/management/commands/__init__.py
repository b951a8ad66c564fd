"""Management commands of the history app."""
