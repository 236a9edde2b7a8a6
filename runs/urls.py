from django.urls import path

from runs import expectations_views, report_views, views
from runs.cassettes import views as cassette_views
from runs.reviews import views as review_views
from runs.snapshots import views as snapshot_views
from runs.traces import views as trace_views

app_name = "runs"
urlpatterns = [
    path("", views.run_list, name="list"),
    path("<int:run_id>/", views.run_detail, name="detail"),
    path("<int:run_id>/cancel/", views.run_cancel_view, name="cancel"),
    path("<int:run_id>/report.<str:fmt>", report_views.run_report, name="report"),
    path("<int:run_id>/trace.json", trace_views.run_trace_download, name="trace"),
    path("export.<str:fmt>", report_views.runs_export, name="export"),
    path("<int:run_id>/rescore/", views.run_rescore, name="rescore"),
    path("<int:run_id>/replay/", cassette_views.run_replay_view, name="replay"),
    path("<int:run_id>/fork/", cassette_views.run_fork_view, name="fork"),
    path("<int:run_id>/save-expectations/", expectations_views.run_save_expectations, name="save_expectations"),
    path("<int:run_id>/update-snapshots/", snapshot_views.run_update_snapshots, name="update_snapshots"),
    path("scenario/<int:scenario_id>/rescore/", views.scenario_rescore, name="rescore_scenario"),
    path("<int:run_id>/review/", review_views.run_review, name="review"),
    path("reviews/", review_views.review_home, name="reviews"),
    path("reviews/q/<str:token>/<int:position>/", review_views.review_item, name="review_item"),
    path("reviews/<int:review_id>/delete/", review_views.review_delete_view, name="review_delete"),
    path("reviews/export.jsonl", review_views.reviews_export, name="reviews_export"),
]
