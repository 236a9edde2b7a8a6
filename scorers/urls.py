from django.urls import path

from scorers import usage_views, views

app_name = "scorers"
urlpatterns = [
    path("", views.scorer_list, name="list"),
    path("new/", views.scorer_create, name="create"),
    path("test/", views.scorer_test, name="test"),
    path("generate/", views.scorer_generate, name="generate"),
    path("<int:scorer_id>/", views.scorer_edit, name="edit"),
    path("<int:scorer_id>/test/", views.scorer_test, name="test_saved"),
    path("test-reviewed/", views.scorer_test_reviewed, name="test_reviewed"),
    path("<int:scorer_id>/test-reviewed/", views.scorer_test_reviewed, name="test_reviewed_saved"),
    path("<int:scorer_id>/duplicate/", views.scorer_duplicate, name="duplicate"),
    path("<int:scorer_id>/delete/", views.scorer_delete, name="delete"),
    path("<int:scorer_id>/attach/", usage_views.scorer_attach, name="attach"),
    path("<int:scorer_id>/detach/<int:scenario_id>/", usage_views.scorer_detach, name="detach"),
    path("<int:scorer_id>/versions/<int:version>/", usage_views.scorer_version, name="version"),
    path("<int:scorer_id>/versions/<int:version>/restore/", usage_views.scorer_restore, name="restore"),
]
