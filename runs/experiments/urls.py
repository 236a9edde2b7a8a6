from django.urls import path

from runs.experiments import divergence_views, views
from runs.variants import views as variant_views

app_name = "experiments"
urlpatterns = [
    path("", views.experiment_list, name="list"),
    path("new/", views.experiment_create, name="create"),
    path("<int:experiment_id>/", views.experiment_detail, name="detail"),
    path("<int:experiment_id>/cancel/", views.experiment_cancel_view, name="cancel"),
    path("<int:experiment_id>/pin/", views.experiment_pin, name="pin"),
    path("<int:experiment_id>/compare/", views.experiment_compare_view, name="compare"),
    path("runs/<int:run_id>/divergence/", divergence_views.run_divergence, name="divergence"),
    path("<int:experiment_id>/variants/", variant_views.experiment_variants, name="variants"),
    path("variants/surface/", variant_views.variant_surface, name="variant_surface"),
    path("variants/diff/", variant_views.variant_diff, name="variant_diff"),
    path("cells/<int:cell_id>/suggest/", variant_views.cell_suggest, name="cell_suggest"),
    path("cells/<int:cell_id>/run-variant/", variant_views.cell_run_variant, name="cell_run_variant"),
]
