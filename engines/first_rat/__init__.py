"""First Rat (Pegasus Spiele 2022): reference rule engine. See ``rules.py``."""
