"""REST API (DRF) plumbing shared by the apps: the routes (``urls``: each app's ``api.py`` registered under
/api/), paging and hardened parsing (``paging``), the schema's error answers (``schema``), shared fields
(``fields``) and refusals (``refusals``). Token auth for submitters; the same visibility rules as the pages."""
