"""Status-bar widgets."""
