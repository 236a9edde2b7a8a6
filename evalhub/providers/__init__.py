"""Model providers' settings: OpenAI-compatible endpoints, their keys and prices, the Test button, the site-wide
choice of generation and judge models, and the model pickers. Talking to a model is `evalhub.model_client`."""
