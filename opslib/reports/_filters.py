"""The ids a run's parameters name, looked up on the platform before a kernel starts.

A report filtered on a category, a product, a device or a user that the platform does not
know would
run to the end and show empty tables as if the selection were empty: it is refused instead,
with the nearest ids the platform does know. Run by the platform check
(:mod:`opslib.reports._preflight`), in the process that has logged in.
"""

from __future__ import annotations

from typing import Any

from opslib.reports._suggest import did_you_mean

__all__ = ["check_filters", "parse_filter"]


def parse_filter(text: str) -> tuple[str, str, str]:
    """``name=kind=value`` → its three parts.

    Examples
    --------
    >>> parse_filter("product_id=product=p-1")
    ('product_id', 'product', 'p-1')
    """
    name, _, rest = text.partition("=")
    kind, _, value = rest.partition("=")
    return name, kind, value


def _fleet(client: Any) -> Any:
    from opslib.exceptions import OpsError

    try:
        return client.devices.list(progress=False)
    except OpsError:  # a platform without a fleet listing: no suggestions
        return None


def _products(client: Any, name: str, value: str) -> str:
    products = client.products.list()
    ids = [str(p) for p in products["product_id"]]
    if value in ids:
        return ""
    names = dict(zip(ids, products["product_name"].astype("string").fillna(""), strict=True))
    near = did_you_mean(value, ids)
    by_name = {str(n).lower(): p for p, n in names.items()}
    if not near and value.strip().lower() in by_name:
        near = f" (did you mean {by_name[value.strip().lower()]!r}, the id of {value!r}?)"
    return (
        f"parameter {name!r} = {value!r}: the platform has no such product{near}; accepted: "
        f"one of its {len(ids)} product ids (`opslib products export` lists them)"
    )


def _devices(client: Any, name: str, value: str) -> str:
    from opslib.exceptions import NotFound

    try:
        client.devices.get(value)
        return ""
    except NotFound:
        pass
    fleet = _fleet(client)
    ids = [] if fleet is None else [str(d) for d in fleet["device_id"]]
    return (
        f"parameter {name!r} = {value!r}: the platform has no such device"
        f"{did_you_mean(value, ids, cutoff=0.8)}; accepted: the id of a device the account "
        "can see (fleet_inventory lists them)"
    )


def _users(client: Any, name: str, value: str) -> str:
    from opslib.exceptions import NotFound

    try:
        client.users.get(value)
        return ""
    except NotFound:
        pass
    fleet = _fleet(client)
    ids = [] if fleet is None else sorted({str(u) for u in fleet["user_id"].dropna()})
    return (
        f"parameter {name!r} = {value!r}: the platform has no such user"
        f"{did_you_mean(value, ids, cutoff=0.8)}; accepted: the id of a user the account "
        "can read"
    )


def _identities(client: Any, name: str, value: str) -> str:
    from opslib.exceptions import NotFound

    try:
        client.users.get(identity_id=value)
        return ""
    except NotFound:
        return (
            f"parameter {name!r} = {value!r}: the platform has no user of that identity id; "
            "accepted: the identity id of a user the account can read"
        )


def _categories(client: Any, name: str, value: str) -> str:
    if value == "0":  # every category
        return ""
    categories = client.products.categories()
    known = {
        str(int(c)): str(n)
        for c, n in zip(categories["category_id"], categories["category_name"], strict=True)
    }
    if value in known:
        return ""
    shown = ", ".join(f"{c} ({n})" for c, n in known.items())
    return (
        f"parameter {name!r} = {value!r}: the platform has no such category; accepted: "
        f"0 for every category, or one of {shown}"
    )


_CHECKS = {
    "product": _products,
    "device": _devices,
    "user": _users,
    "identity": _identities,
    "category": _categories,
}


def check_filters(client: Any, filters: list[str]) -> tuple[str, str]:
    """The first filter the platform does not know, as ``(name, refusal)``; ``("", "")``
    when it knows them all.

    Examples
    --------
    >>> check_filters(client, ["product_id=product=p-nonexistent"])  # doctest: +SKIP
    ('product_id', "parameter 'product_id' = 'p-nonexistent': the platform has no ...")
    """
    for text in filters:
        name, kind, value = parse_filter(text)
        check = _CHECKS.get(kind)
        if check is None or not value.strip():
            continue
        refusal = check(client, name, value.strip())
        if refusal:
            return name, refusal
    return "", ""
