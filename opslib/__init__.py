"""opslib: operations suite for a smart-device platform."""

__all__: list[str] = []
