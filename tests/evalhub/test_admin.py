from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse


@pytest.mark.django_db
class AdminTests:
    def test_every_model_has_a_working_changelist_and_add_page(self, client: Client) -> None:
        client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
        app_labels = {model._meta.app_label for model in admin.site._registry}
        assert {"evalhub", "runs", "auth"} <= app_labels

        for model in admin.site._registry:
            opts = model._meta
            changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
            assert client.get(changelist).status_code == 200, changelist
            assert client.get(changelist, {"q": "x"}).status_code == 200, changelist

    def test_non_staff_cannot_open_the_admin(self, bob_client: Client) -> None:
        assert bob_client.get("/admin/").status_code == 302
