"""Views of the core app, one module per section."""
