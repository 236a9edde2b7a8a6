"""price_call(): genai-prices for known models, overrides first, unknown stays unknown."""

from __future__ import annotations

from decimal import Decimal

from evalhub.model_client import ModelPrice, TokenUsage, price_call

# 800 fresh + 200 cached input tokens, 500 output tokens: small enough to stay below long-context tiers.
USAGE = TokenUsage(input_tokens=1000, output_tokens=500, cached_tokens=200)
OPENAI = "https://api.openai.com/v1"
ANTHROPIC = "https://api.anthropic.com/v1/"
GATEWAY = "https://litellm.example.com/v1"


class PricingTests:
    def test_gpt_4o_on_openai(self) -> None:
        cost = price_call(model="gpt-4o", usage=USAGE, base_url=OPENAI)

        # $2.50/M fresh input, $1.25/M cached input, $10/M output.
        assert cost.input_usd == Decimal("0.00225")
        assert cost.output_usd == Decimal("0.005")
        assert cost.total_usd == Decimal("0.00725")
        assert cost.source == "genai-prices"

    def test_a_dated_response_model_is_priced_like_its_family(self) -> None:
        cost = price_call(model="gpt-4o-2024-08-06", usage=USAGE, base_url=OPENAI)

        assert cost.total_usd == Decimal("0.00725")

    def test_gpt_4_1_mini(self) -> None:
        cost = price_call(model="gpt-4.1-mini", usage=USAGE, base_url=OPENAI)

        # $0.40/M input, $0.10/M cached, $1.60/M output.
        assert cost.input_usd == Decimal("0.00034")
        assert cost.output_usd == Decimal("0.0008")

    def test_claude_sonnet_4_5_on_anthropic(self) -> None:
        cost = price_call(
            model="claude-sonnet-4-5", usage=TokenUsage(input_tokens=1000, output_tokens=500), base_url=ANTHROPIC
        )

        # $3/M input, $15/M output.
        assert (cost.input_usd, cost.output_usd) == (Decimal("0.003"), Decimal("0.0075"))

    def test_claude_3_5_haiku_through_a_gateway_is_inferred_from_the_name(self) -> None:
        cost = price_call(
            model="claude-3-5-haiku", usage=TokenUsage(input_tokens=1000, output_tokens=500), base_url=GATEWAY
        )

        # $0.80/M input, $4/M output.
        assert (cost.input_usd, cost.output_usd) == (Decimal("0.0008"), Decimal("0.002"))

    def test_a_vendor_prefix_is_understood_through_a_gateway(self) -> None:
        cost = price_call(model="openai/gpt-4o", usage=USAGE, base_url=GATEWAY)

        assert cost.total_usd == Decimal("0.00725")

    def test_an_override_wins(self) -> None:
        override = {"gpt-4o": ModelPrice(Decimal("1"), Decimal("2"), cached_input_per_mtok=Decimal("0.5"))}

        cost = price_call(model="gpt-4o", usage=USAGE, base_url=OPENAI, overrides=override)

        assert cost.input_usd == Decimal("0.0009")  # 800 at $1/M + 200 at $0.50/M
        assert cost.output_usd == Decimal("0.001")
        assert cost.source == "override"

    def test_an_override_given_as_floats_is_computed_in_decimal(self) -> None:
        price = ModelPrice(0.1, 0.2)  # type: ignore[arg-type]

        cost = price_call(model="m", usage=TokenUsage(3_000_000, 0), base_url=GATEWAY, overrides={"m": price})

        assert cost.input_usd == Decimal("0.3")

    def test_an_override_may_name_the_reported_model(self) -> None:
        override = {"gpt-4o-2024-08-06": ModelPrice(Decimal("1"), Decimal("1"))}

        cost = price_call(
            model="gpt-4o", response_model="gpt-4o-2024-08-06", usage=USAGE, base_url=OPENAI, overrides=override
        )

        assert cost.total_usd == Decimal("0.0015")

    def test_an_unknown_model_is_unknown(self) -> None:
        cost = price_call(model="my-finetune-v2", usage=USAGE, base_url=OPENAI)

        assert (cost.input_usd, cost.output_usd, cost.total_usd, cost.source) == (None, None, None, "unknown")
        assert not cost.is_known

    def test_a_local_model_is_unknown_even_with_a_known_looking_name(self) -> None:
        # Ollama's deepseek-r1:7b is not DeepSeek's API; genai-prices would otherwise match it.
        for url in ("http://localhost:11434/v1", "http://192.168.1.20:8000/v1", "http://ollama:11434/v1"):
            assert price_call(model="deepseek-r1:7b", usage=USAGE, base_url=url).total_usd is None

    def test_a_local_model_with_an_override_is_priced(self) -> None:
        cost = price_call(
            model="llama3.1:8b",
            usage=USAGE,
            base_url="http://localhost:11434/v1",
            overrides={"llama3.1:8b": ModelPrice(Decimal("0"), Decimal("0"))},
        )

        assert cost.total_usd == Decimal("0")

    def test_the_offline_model_is_free_not_unknown(self) -> None:
        cost = price_call(model="evalhub-offline", usage=USAGE, base_url="http://evalhub-offline.local/v1")

        assert (cost.total_usd, cost.source) == (Decimal("0"), "free")

    def test_no_usage_is_unknown(self) -> None:
        assert price_call(model="gpt-4o", usage=None, base_url=OPENAI).total_usd is None
