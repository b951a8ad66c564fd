"""Arena URLs (mounted at /arena/); the agreement page is the boards' (it reads both)."""

from django.urls import path

from leaderboard.arena import views
from leaderboard.boards import views as board_views

urlpatterns = [
    path("", views.arena_home, name="arena"),
    path("chat/", views.arena_home, {"setting": "chat"}, name="arena-chat"),
    path("leaderboard/", views.leaderboard_page, name="arena-leaderboard"),
    path("findings/", views.findings_page, name="arena-findings"),
    path("topics/", views.topics_page, name="arena-topics"),
    path("transparency/", views.transparency_page, name="arena-transparency"),
    path("agreement/", board_views.agreement_page, name="arena-agreement"),
    path("votes.<str:fmt>", views.votes_download, name="arena-votes"),
    path("exclusions/", views.exclusions_page, name="arena-exclusions"),
    path("b/<str:public_id>/", views.battle_page, name="arena-battle"),
    path("b/<str:public_id>/turns/<int:index>/<str:side>/", views.battle_pane, name="arena-pane"),
    path("b/<str:public_id>/controls/", views.battle_controls, name="arena-controls"),
    path("b/<str:public_id>/turn/", views.battle_turn, name="arena-turn"),
    path("b/<str:public_id>/vote/", views.battle_vote, name="arena-vote"),
]
