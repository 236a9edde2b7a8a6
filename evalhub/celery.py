"""The Celery app. Configuration lives in settings.py under the CELERY_ prefix."""

from __future__ import annotations

import os

from celery import Celery

from evalhub import broker

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalhub.settings")

broker.register()
app = Celery("evalhub")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
