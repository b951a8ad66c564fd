"""Template tags of the history app: the snapshot banner, the changelog and rank history on shared pages."""
