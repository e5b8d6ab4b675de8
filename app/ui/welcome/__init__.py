"""What the central area shows until the chat view takes it over."""
