"""The report runner: find, inspect, run and export the notebook reports.

>>> from opslib import reports
>>> sorted(reports.report_names())  # doctest: +SKIP
['event_analysis', 'fleet_inventory', 'product_upkeep', 'user_lookup']
>>> run = reports.run_report("fleet_inventory", profile="prod")  # doctest: +SKIP
>>> run.outcome  # doctest: +SKIP
'ok'

Modules: ``params`` (inspection and coercion), ``checks`` (what values mean, checked
before a kernel starts), ``platform`` (the platform of a run, checked once), ``execute``
(one run: prepare, start the worker, wait, judge, finish), ``status`` (what a run did),
``export`` (HTML), ``runall`` (a list of runs), ``index`` (index.html and pruning),
``product_upkeep`` (applying a product plan, its audit log, the products export),
``notebook`` (helpers the notebooks call). Heavy dependencies (papermill, nbconvert) are
imported only when a report runs.
"""

from opslib.reports._discovery import ReportNotFound, find_notebook, notebook_dirs, report_names
from opslib.reports.checks import RoleRefused, check_parameters
from opslib.reports.execute import run_report
from opslib.reports.params import (
    ParameterError,
    ReportParameter,
    UnknownParameterError,
    coerce_value,
    inspect_report,
    validate_parameters,
)
from opslib.reports.platform import (
    Platform,
    PlatformNotConfigured,
    PlatformUnavailable,
    open_connection,
)
from opslib.reports.status import RunResult, redact

__all__ = [
    "ParameterError",
    "Platform",
    "PlatformNotConfigured",
    "PlatformUnavailable",
    "ReportNotFound",
    "ReportParameter",
    "RoleRefused",
    "RunResult",
    "UnknownParameterError",
    "check_parameters",
    "coerce_value",
    "find_notebook",
    "inspect_report",
    "notebook_dirs",
    "open_connection",
    "redact",
    "report_names",
    "run_report",
    "validate_parameters",
]
