"""A board's history: frozen snapshots people can cite, the changelog written by the services that
change a board, and each model's rank and headline over time."""
