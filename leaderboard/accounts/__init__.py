"""Accounts: sign-up on top of Django's auth (sign-in and sign-out use Django's own views), and API tokens."""
