"""The reference platform: all 18 operations of the interface over SQLite."""
