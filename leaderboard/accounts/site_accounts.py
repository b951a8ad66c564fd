"""The site's own accounts: inactive users that own what the site submits itself (the evaluators'
baselines and the embedded demo model), never people who sign in."""

#: the inactive staff account that owns the evaluators' baseline predictions (reference models)
BASELINE_OWNER = "baselines"
#: the inactive account that owns the embedded demo's model
DEMO_OWNER = "demo"
SITE_OWNERS = frozenset({BASELINE_OWNER, DEMO_OWNER})
