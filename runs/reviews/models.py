"""A review: one person's pass or fail on one run, with an optional note and the score they think it deserved.

One review per (run, reviewer): a person changes their own review rather than adding another, so a run's reviews
count people, not clicks. The run's `human_verdict` (runs.reviews.rule) is computed from them by the services.
"""

from __future__ import annotations

from django.conf import settings as django_settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models


class Review(models.Model):
    class Verdict(models.TextChoices):
        PASS = "pass", "Pass"
        FAIL = "fail", "Fail"

    # Strings, not imports: runs.models imports this module, and a review belongs to the run it judges.
    run = models.ForeignKey("runs.Run", on_delete=models.CASCADE, related_name="reviews")
    # A deleted account's reviews go with it: a label nobody can answer for is not one to calibrate judges on.
    reviewer = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reviews")
    verdict = models.CharField(max_length=4, choices=Verdict.choices)
    note = models.TextField(blank=True, max_length=2000)
    # "The score should be X": a label for calibrating scorers; it never changes the run's own score.
    score = models.FloatField(null=True, blank=True, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)])
    # The automatic verdict the reviewer saw (or, in blind mode, did not see) when they answered: what their
    # label is compared with even if the run is re-scored later.
    auto_verdict = models.CharField(max_length=12, blank=True)
    blind = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    class Meta:
        ordering = ["updated_at", "id"]
        constraints = [models.UniqueConstraint(fields=["run", "reviewer"], name="one_review_per_run_and_reviewer")]

    def __str__(self) -> str:
        return f"Review of run {self.run_id} by {self.reviewer_id}: {self.verdict}"
