"""Re²Math domain logic: instance schema, citing-paper identity, splits, agent input rendering."""
