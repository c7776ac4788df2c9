"""Prototype improvements measured in the same harness (filled in after the baseline run)."""
METHODS: dict = {}
