"""UniDesk: a private AI assistant that runs language models on the user's own machine."""

__version__ = "0.1.0"
