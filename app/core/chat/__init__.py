"""Conversations store, prompt assembly within the context budget, export."""
