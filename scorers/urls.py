from django.urls import path

from scorers import views

app_name = "scorers"
urlpatterns = [
    path("", views.scorer_list, name="list"),
    path("new/", views.scorer_create, name="create"),
    path("test/", views.scorer_test, name="test"),
    path("generate/", views.scorer_generate, name="generate"),
    path("<int:scorer_id>/", views.scorer_edit, name="edit"),
    path("<int:scorer_id>/test/", views.scorer_test, name="test_saved"),
    path("<int:scorer_id>/duplicate/", views.scorer_duplicate, name="duplicate"),
    path("<int:scorer_id>/delete/", views.scorer_delete, name="delete"),
]
