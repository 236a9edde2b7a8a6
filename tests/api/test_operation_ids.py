"""What clients generate code from: operationIds (moving a route's module must not rename them) and parameters."""

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


class ParameterSchemaTests:
    def test_no_parameter_may_be_null_and_bounds_are_json_schema(self) -> None:
        schema = api.get_openapi_schema(path_prefix="/api/v1/")
        parameters = {
            (path, parameter["name"]): parameter["schema"]
            for path, item in schema["paths"].items()
            for operation in item.values()
            for parameter in operation.get("parameters", [])
        }
        assert not [where for where, value in parameters.items() if "anyOf" in value or "ge" in value or "le" in value]
        assert parameters[("/api/v1/reviews", "experiment_id")] == {
            "title": "Experiment Id",
            "type": "integer",
            "minimum": 1,
            "maximum": 2**63 - 1,
        }
        assert parameters[("/api/v1/scenarios", "name")]["type"] == "string"
