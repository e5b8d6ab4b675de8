"""Memory and speed gauges, fed by a sampler that reads snapshots a few times a second."""
