"""The local OpenAI-compatible API: /v1/models, /v1/chat/completions, /v1/embeddings on 127.0.0.1."""
