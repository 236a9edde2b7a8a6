from __future__ import annotations

from typing import Any

import pytest

from evalhub.scenarios.models import Scenario
from tests.base import make_demo_server, make_scenario


@pytest.fixture
def few_reviews(settings: Any) -> None:
    """Calibration from four reviewed runs, so a test can reach every status with a handful of runs."""
    settings.EVALHUB_CALIBRATION_MIN_REVIEWS = 4
    settings.EVALHUB_CALIBRATION_MIN_KAPPA = 0.6


@pytest.fixture
def scenario(db: None) -> Scenario:
    return make_scenario(make_demo_server())
