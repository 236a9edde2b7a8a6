from django.contrib import admin

from runs.models import DailyRunQuota


@admin.register(DailyRunQuota)
class DailyRunQuotaAdmin(admin.ModelAdmin):
    list_display = ["day", "used"]
