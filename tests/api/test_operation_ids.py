"""operationIds are part of the published API: moving a route's module must not rename them."""

from __future__ import annotations

from evalhub.api import api


def _operation_ids() -> set[str]:
    schema = api.get_openapi_schema(path_prefix="/api/v1/")
    return {operation["operationId"] for item in schema["paths"].values() for operation in item.values()}


class OperationIdTests:
    def test_routes_that_moved_into_concept_packages_keep_their_published_ids(self) -> None:
        ids = _operation_ids()
        assert {
            "evalhub_api_routes_servers_list_servers",
            "evalhub_api_routes_servers_inspect_server",
            "evalhub_api_routes_scenarios_duplicate_scenario",
            "evalhub_api_routes_system_get_health",
            "runs_api_list_runs",
            "scorers_api_test_scorer",
        } <= ids

    def test_no_id_names_a_module_path_that_does_not_exist_in_the_published_api(self) -> None:
        prefixes = ("evalhub_api_routes_servers_", "evalhub_api_routes_scenarios_", "evalhub_api_routes_system_")
        prefixes += ("runs_api_", "runs_experiments_api_", "scorers_api_", "evalhub_suites_api_")
        prefixes += ("evalhub_server_evals_api_", "runs_events_api_", "runs_reviews_api_", "evalhub_checkups_api_")
        prefixes += ("runs_cassettes_api_",)
        assert all(i.startswith(prefixes) for i in _operation_ids())
