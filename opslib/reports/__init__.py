"""The report runner: find, inspect, run and export the notebook reports.

>>> from opslib import reports
>>> sorted(reports.report_names())  # doctest: +SKIP
['event_analysis', 'fleet_inventory', 'product_upkeep', 'user_lookup']
>>> reports.run_report("fleet_inventory", {"silent_days": 14}).outcome  # doctest: +SKIP
'ok'

Modules: ``params`` (inspection and coercion), ``execute`` (one run), ``export`` (HTML),
``runall`` (a list of runs and index.html), ``product_upkeep`` (applying a product plan
and its audit log), ``notebook`` (helpers the notebooks call). Heavy dependencies
(papermill, nbconvert) are imported only when a report runs.
"""

from opslib.reports._discovery import ReportNotFound, find_notebook, notebook_dirs, report_names
from opslib.reports.execute import RunResult, redact, run_report
from opslib.reports.params import (
    ParameterError,
    ReportParameter,
    UnknownParameterError,
    coerce_value,
    inspect_report,
    validate_parameters,
)

__all__ = [
    "ParameterError",
    "ReportNotFound",
    "ReportParameter",
    "RunResult",
    "UnknownParameterError",
    "coerce_value",
    "find_notebook",
    "inspect_report",
    "notebook_dirs",
    "redact",
    "report_names",
    "run_report",
    "validate_parameters",
]
