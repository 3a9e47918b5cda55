"""The bottom layer: the exception root, content hashing, JSONL reading, settings and paths, the registry class,
typed benchmark metadata and the family record. Nothing here imports any other part of Lemmata."""
