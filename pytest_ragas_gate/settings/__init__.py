"""The run's settings: the config file, its values and checks, options and output paths."""
