"""Pure pandas analysis of the frames the client returns; one module per report.

Nothing here talks to the platform: each function takes frames of the shapes declared in
``opslib.client.frames.schema`` and returns a new frame (or text). The notebooks call these,
and so can anyone working in a notebook or script of their own.

>>> from opslib import analysis
>>> analysis.mask_phone("5550000001")
'555*****01'
"""

from opslib.analysis._common import Window, previous_window, resolve_window
from opslib.analysis.compare import (
    MIN_PERCENT_BASE,
    change_summary,
    compare_periods,
    percent_text,
    top_offender,
)
from opslib.analysis.downtime import downtime, downtime_not_computed, outages, start_states
from opslib.analysis.events import (
    PROPERTY_PREFIX,
    WEEKDAYS,
    alarm_codes,
    chart_properties,
    event_type_values,
    event_volume,
    filter_events,
    hour_weekday_matrix,
    noisiest_devices,
    property_columns,
    property_stats,
    value_by_command,
    window_weekdays,
)
from opslib.analysis.fleet import (
    bind_cohorts,
    count_by,
    count_by_category,
    filter_devices,
    group_summary,
    never_online,
    ownership_summary,
    silent_devices,
)
from opslib.analysis.headline import (
    Figure,
    event_headline,
    fleet_headline,
    product_headline,
    user_headline,
)
from opslib.analysis.kinds import (
    KINDS,
    REFERENCE_KINDS,
    EventKinds,
    event_kinds,
    not_computable,
    type_labels,
)
from opslib.analysis.names import (
    category_names,
    device_names,
    in_zone,
    product_names,
    with_names,
)
from opslib.analysis.product_plan import keep_current, plan_products
from opslib.analysis.products import (
    COMPARED_FIELDS,
    PRODUCT_COLUMNS,
    SECRET_MASK,
    ProductFileCheck,
    desired_state,
    read_product_file,
    validate_product_file,
)
from opslib.analysis.users import mask_phone, profile_table, settings_table
from opslib.analysis.zones import zone_label

__all__ = [
    "COMPARED_FIELDS",
    "KINDS",
    "MIN_PERCENT_BASE",
    "PRODUCT_COLUMNS",
    "PROPERTY_PREFIX",
    "REFERENCE_KINDS",
    "SECRET_MASK",
    "WEEKDAYS",
    "EventKinds",
    "Figure",
    "ProductFileCheck",
    "Window",
    "alarm_codes",
    "bind_cohorts",
    "category_names",
    "change_summary",
    "chart_properties",
    "compare_periods",
    "count_by",
    "count_by_category",
    "desired_state",
    "device_names",
    "downtime",
    "downtime_not_computed",
    "event_headline",
    "event_kinds",
    "event_type_values",
    "event_volume",
    "filter_devices",
    "filter_events",
    "fleet_headline",
    "group_summary",
    "hour_weekday_matrix",
    "in_zone",
    "keep_current",
    "mask_phone",
    "never_online",
    "noisiest_devices",
    "not_computable",
    "outages",
    "ownership_summary",
    "percent_text",
    "plan_products",
    "previous_window",
    "product_headline",
    "product_names",
    "profile_table",
    "property_columns",
    "property_stats",
    "read_product_file",
    "resolve_window",
    "settings_table",
    "silent_devices",
    "start_states",
    "top_offender",
    "type_labels",
    "user_headline",
    "validate_product_file",
    "value_by_command",
    "window_weekdays",
    "with_names",
    "zone_label",
]
