"""Run by IPython when a report kernel starts (``PYTHONSTARTUP``); see ``_imports``."""

from opslib.reports._imports import skip_iri_checker

skip_iri_checker()
del skip_iri_checker
