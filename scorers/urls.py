from django.urls import path

from scorers import views

app_name = "scorers"
urlpatterns = [
    path("", views.scorer_list, name="list"),
]
