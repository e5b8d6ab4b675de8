"""PySide6 user interface. Depends on app.core, never the reverse."""
