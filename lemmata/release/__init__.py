"""Versioned release folders: Parquet per config/split, card, Croissant, manifest, citation."""
