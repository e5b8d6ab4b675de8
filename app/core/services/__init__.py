"""Long-running jobs that tie engines, knowledge base and chat together."""
