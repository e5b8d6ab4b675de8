"""Small shared helpers: errors, cancellation, logging."""
