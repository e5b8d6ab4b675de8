"""The settings dialog: editors generated from the SETTINGS declaration and the live memory verdict."""
