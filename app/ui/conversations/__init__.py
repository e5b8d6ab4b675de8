"""The conversations sidebar: list, search, new, rename, pin, delete."""
