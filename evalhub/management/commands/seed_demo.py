from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from evalhub.demo import DEMO_FIXTURES


class Command(BaseCommand):
    help = "Create the demo login and demo data. Safe to run again: existing objects are kept."

    def handle(self, *args: Any, **options: Any) -> None:
        for fixture in DEMO_FIXTURES:
            with transaction.atomic():
                lines = fixture()
            for line in lines:
                self.stdout.write(line)
