"""Knowledge base: document parsers, chunker, embedder, vector and keyword index, retrieval."""
