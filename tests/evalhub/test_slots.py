"""evalhub/slots.py: a limit in all and per user."""

from __future__ import annotations

from evalhub.slots import Slots


class SlotsTests:
    def test_a_user_past_her_share_is_refused_before_the_total(self) -> None:
        slots = Slots()
        assert [slots.take(1, total=3, per_user=2) for _ in range(3)] == [None, None, "per_user"]
        assert slots.take(2, total=3, per_user=2) is None
        assert slots.take(3, total=3, per_user=2) == "total"

    def test_a_slot_given_back_can_be_taken_again(self) -> None:
        slots = Slots()
        slots.take(1, total=1, per_user=1)
        slots.give_back(1)
        assert slots.held(1) == 0
        assert slots.take(2, total=1, per_user=1) is None
