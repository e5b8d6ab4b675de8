"""The model manager: curated catalog with fit badges, downloads, local models, and the first-run guide."""
