"""Business rules of the operations; SQL stays in :mod:`opslib.server.store`."""
