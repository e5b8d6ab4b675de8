"""Plain-Python state shared by the window and its workers: current settings, machine facts, services."""
