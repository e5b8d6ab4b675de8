"""The knowledge-base panel: documents dragged in or added, their state, indexing progress, watched folders."""
