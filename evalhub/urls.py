from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from evalhub.views import scenarios, shell

urlpatterns = [
    path("", shell.home, name="home"),
    path("health", shell.health, name="health"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("scenarios/", scenarios.scenario_list, name="scenario_list"),
    path("scenarios/new/", scenarios.scenario_create, name="scenario_create"),
    path("scenarios/run/", scenarios.scenarios_run_bulk, name="scenarios_run_bulk"),
    path("scenarios/<int:scenario_id>/", scenarios.scenario_detail, name="scenario_detail"),
    path("scenarios/<int:scenario_id>/edit/", scenarios.scenario_edit, name="scenario_edit"),
    path("scenarios/<int:scenario_id>/duplicate/", scenarios.scenario_duplicate, name="scenario_duplicate"),
    path("scenarios/<int:scenario_id>/delete/", scenarios.scenario_delete, name="scenario_delete"),
    path("scenarios/<int:scenario_id>/run/", scenarios.scenario_run, name="scenario_run"),
    path("servers/", shell.server_list, name="server_list"),
    path("settings/", shell.settings_page, name="settings"),
    path("runs/", include("runs.urls")),
    path("scorers/", include("scorers.urls")),
    path("admin/", admin.site.urls),
]
