from django.contrib import admin

from evalhub.models import WorkerHeartbeat
from evalhub.servers.models import McpServer


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    list_display = ["hostname", "last_seen"]
    readonly_fields = ["hostname", "last_seen"]


@admin.register(McpServer)
class McpServerAdmin(admin.ModelAdmin):
    # Secrets are set on the Servers page only: the admin neither shows nor edits the sealed value.
    list_display = ["name", "transport", "last_inspected_at"]
    search_fields = ["name", "command", "url"]
    exclude = ["sealed_secrets"]
    readonly_fields = ["last_inspected_at", "last_inspection", "last_error", "created_at", "updated_at"]
