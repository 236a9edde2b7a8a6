"""The core domain every app shares. One module per concept; import models from here."""

from evalhub.models.api_keys import ApiKey
from evalhub.models.providers import Provider
from evalhub.models.scenarios import Scenario, Tag
from evalhub.models.servers import McpServer, ToolSnapshot
from evalhub.models.site_settings import SiteSettings
from evalhub.models.workers import WorkerHeartbeat

__all__ = ["ApiKey", "McpServer", "Provider", "Scenario", "SiteSettings", "Tag", "ToolSnapshot", "WorkerHeartbeat"]
