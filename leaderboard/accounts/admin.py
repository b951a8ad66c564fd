"""The users' admin: Django's own, whose deletes also change what the boards show (a deleted user takes
their models, submissions and runs, and so their rows, with them; ``ChangesBoardsAdmin``)."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User

from leaderboard.pagecache_admin import ChangesBoardsAdmin

admin.site.unregister(User)


@admin.register(User)
class BoardsUserAdmin(ChangesBoardsAdmin, UserAdmin):
    pass
