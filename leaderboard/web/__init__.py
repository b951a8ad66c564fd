"""Server-rendered pages (htmx partials, no front-end build): home, leaderboards, models,
submissions with live progress, and the submit form."""
