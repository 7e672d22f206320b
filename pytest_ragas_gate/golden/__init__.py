"""Golden cases: the case model, file formats and field aliases, loading and sharding."""
