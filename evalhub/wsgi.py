"""WSGI entry point for production servers (gunicorn evalhub.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalhub.settings")
application = get_wsgi_application()
