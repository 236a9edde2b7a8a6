from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from evalhub import views as shell
from evalhub.api import api_urlpatterns
from evalhub.api_keys import views as api_keys
from evalhub.checkups import views as checkups
from evalhub.providers import views as providers
from evalhub.scenarios import views as scenarios
from evalhub.server_evals import views as server_evals
from evalhub.servers import views as servers
from evalhub.suites import views as suites

urlpatterns = [
    path("", shell.home, name="home"),
    path("health", shell.health, name="health"),
    path("login/", shell.EvalHubLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("scenarios/", scenarios.scenario_list, name="scenario_list"),
    path("scenarios/new/", scenarios.scenario_create, name="scenario_create"),
    path("scenarios/run/", scenarios.scenarios_run_bulk, name="scenarios_run_bulk"),
    path("scenarios/expectations/check/", scenarios.scenario_expectations_check, name="scenario_expectations_check"),
    path("scenarios/export/", suites.suite_export_view, name="suite_export"),
    path("scenarios/import/", suites.suite_import_view, name="suite_import"),
    path("scenarios/<int:scenario_id>/", scenarios.scenario_detail, name="scenario_detail"),
    path("scenarios/<int:scenario_id>/edit/", scenarios.scenario_edit, name="scenario_edit"),
    path("scenarios/<int:scenario_id>/last-score/", scenarios.scenario_last_score, name="scenario_last_score"),
    path("scenarios/<int:scenario_id>/duplicate/", scenarios.scenario_duplicate, name="scenario_duplicate"),
    path("scenarios/<int:scenario_id>/delete/", scenarios.scenario_delete, name="scenario_delete"),
    path("scenarios/<int:scenario_id>/run/", scenarios.scenario_run, name="scenario_run"),
    path("servers/", servers.server_list, name="server_list"),
    path("servers/new/", servers.server_create, name="server_create"),
    path("servers/<int:server_id>/", servers.server_detail, name="server_detail"),
    path("servers/<int:server_id>/edit/", servers.server_edit, name="server_edit"),
    path("servers/<int:server_id>/delete/", servers.server_delete, name="server_delete"),
    path("servers/<int:server_id>/inspect/", servers.server_inspect, name="server_inspect"),
    path("servers/<int:server_id>/checkup/", checkups.server_checkup, name="server_checkup"),
    path("checkups/<int:checkup_id>/", checkups.checkup_detail, name="checkup_detail"),
    path("checkups/<int:checkup_id>/report.<str:fmt>", checkups.checkup_report, name="checkup_report"),
    path(
        "checkups/<int:checkup_id>/compare/<int:other_id>/",
        checkups.checkup_compare_view,
        name="checkup_compare",
    ),
    path("servers/<int:server_id>/evals/import/", server_evals.server_evals_import, name="server_evals_import"),
    path("servers/<int:server_id>/evals/resync/", server_evals.server_evals_resync, name="server_evals_resync"),
    path("servers/<int:server_id>/tools/test/", server_evals.server_tool_test, name="server_tool_test"),
    path("servers/<int:server_id>/tools/test/save/", server_evals.server_tool_test_save, name="server_tool_test_save"),
    path(
        "servers/<int:server_id>/tools/test/<str:test_id>/",
        server_evals.server_tool_test_result,
        name="server_tool_test_result",
    ),
    path(
        "servers/<int:server_id>/side-effects/acknowledge/",
        server_evals.server_side_effects_acknowledge,
        name="server_side_effects_acknowledge",
    ),
    path("servers/<int:server_id>/snapshots/<str:tools_hash>/", servers.server_snapshot, name="server_snapshot"),
    path("settings/", providers.settings_page, name="settings"),
    path("settings/api-keys/", api_keys.api_key_list, name="api_keys"),
    path("settings/api-keys/<int:key_id>/revoke/", api_keys.api_key_revoke, name="api_key_revoke"),
    path("settings/models/", providers.site_settings_edit, name="site_settings_edit"),
    path("settings/providers/new/", providers.provider_create, name="provider_create"),
    path("settings/providers/<int:provider_id>/edit/", providers.provider_edit, name="provider_edit"),
    path("settings/providers/<int:provider_id>/delete/", providers.provider_delete, name="provider_delete"),
    path("settings/providers/<int:provider_id>/test/", providers.provider_test, name="provider_test"),
    path("settings/providers/<int:provider_id>/models/", providers.provider_models, name="provider_models"),
    path("runs/", include("runs.urls")),
    path("experiments/", include("runs.experiments.urls")),
    path("scorers/", include("scorers.urls")),
    path("admin/", admin.site.urls),
    *api_urlpatterns(),
]
