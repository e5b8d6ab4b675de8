"""The chat view: messages as Markdown, streaming answers, sources, the context meter and the input."""
