from django.urls import path

from runs.experiments import divergence_views, views

app_name = "experiments"
urlpatterns = [
    path("", views.experiment_list, name="list"),
    path("new/", views.experiment_create, name="create"),
    path("<int:experiment_id>/", views.experiment_detail, name="detail"),
    path("<int:experiment_id>/cancel/", views.experiment_cancel_view, name="cancel"),
    path("<int:experiment_id>/pin/", views.experiment_pin, name="pin"),
    path("<int:experiment_id>/compare/", views.experiment_compare_view, name="compare"),
    path("runs/<int:run_id>/divergence/", divergence_views.run_divergence, name="divergence"),
]
