from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from evalhub import views

urlpatterns = [
    path("", views.home, name="home"),
    path("health", views.health, name="health"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("scenarios/", views.scenario_list, name="scenario_list"),
    path("servers/", views.server_list, name="server_list"),
    path("settings/", views.settings_page, name="settings"),
    path("runs/", include("runs.urls")),
    path("scorers/", include("scorers.urls")),
    path("admin/", admin.site.urls),
]
