"""Engine protocol and manager; the backends are the only modules that import engines."""
