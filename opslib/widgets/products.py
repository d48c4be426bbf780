"""A form that adds one product, or deletes one after a confirmation."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import ipywidgets as w
import pandas as pd

__all__ = ["ProductForm"]


class ProductForm:
    """Add one product, or delete one after a confirmation, through the client.

    Every coded field is a dropdown of its labels; the secret is a password box and never
    shown. ``on_write(action, result)`` is called after each write (e.g. to append to the
    audit log). The form names the connected ``account``; without the ``admin`` ``role``
    its buttons are disabled and it says how to connect as an admin.

    Attributes
    ----------
    fields : dict of ipywidgets
        ``product_id``, ``product_name``, ``product_secret``, ``product_icon``,
        ``category_id``, ``vendor_type`` and every coded field.
    add_button, delete_button, confirm_button, cancel_button : ipywidgets.Button
    delete_product : ipywidgets.Dropdown
    pending_delete : str
        The product waiting for confirmation ("" when none).
    last_result : pandas.DataFrame or None
        The write frame of the last add or delete.

    Examples
    --------
    >>> form = widgets.ProductForm(client, categories, products, account="Ada (555*****01)",
    ...                            role="admin")  # doctest: +SKIP
    """

    def __init__(
        self,
        client: Any,
        categories: pd.DataFrame,
        products: pd.DataFrame,
        *,
        on_write: Callable[[str, pd.DataFrame], None] | None = None,
        account: str = "",
        role: str = "",
    ) -> None:
        self.client = client
        self.role = role
        self.on_write = on_write
        self.last_result: pd.DataFrame | None = None
        self.pending_delete = ""
        self.message = w.HTML()
        cats = [
            (f"{c} {n}", int(c))
            for c, n in zip(categories["category_id"], categories["category_name"], strict=True)
        ]
        self.fields: dict[str, w.ValueWidget] = {
            "product_id": w.Text(description="product_id"),
            "product_name": w.Text(description="name"),
            "product_secret": w.Password(description="secret"),
            "product_icon": w.Text(description="icon"),
            "category_id": w.Dropdown(
                options=cats, value=cats[0][1] if cats else None, description="category"
            ),
            "vendor_type": w.Dropdown(options=list(range(100)), value=0, description="vendor_type"),
        }
        for name, labels in client.products.labels().items():  # the platform's codes
            options = [(label, value) for value, label in labels.items()]
            self.fields[name] = w.Dropdown(options=options, value=options[0][1], description=name)
        for widget in self.fields.values():  # whole labels: "encrypt_type", not "encrypt_t…"
            widget.style = {"description_width": "110px"}
        self.add_button = w.Button(description="Add product", button_style="primary")
        self.add_button.on_click(lambda _b: self.add())
        ids = [str(p) for p in products["product_id"]] if not products.empty else []
        self.delete_product = w.Dropdown(
            options=ids, value=ids[0] if ids else None, description="product"
        )
        self.delete_button = w.Button(description="Delete…", button_style="warning")
        self.delete_button.on_click(lambda _b: self.ask_delete())
        self.confirm_button = w.Button(description="Yes, delete", button_style="danger")
        self.confirm_button.on_click(lambda _b: self.confirm_delete())
        self.cancel_button = w.Button(description="Cancel")
        self.cancel_button.on_click(lambda _b: self.cancel_delete())
        self.confirm_box = w.HBox(
            [self.confirm_button, self.cancel_button], layout=w.Layout(display="none")
        )
        self.writable = role == "admin"
        for button in (self.add_button, self.delete_button, self.confirm_button):
            button.disabled = not self.writable
        who = html.escape(account or "an unknown account")
        self.account_note = w.HTML(
            f"<p>Connected as {who}.</p>"
            if self.writable
            else f"<p>Connected as {who}: adding or deleting a product needs the "
            "<b>admin</b> role, so the buttons are disabled. To connect as an admin, "
            "set <code>OPSLIB_PROFILE</code> to a profile of an admin account "
            "(<code>~/.config/opslib/config.toml</code>) or the <code>OPSLIB_*</code> "
            "variables of one, then restart the kernel and run the notebook again.</p>"
        )
        self.widget = w.VBox(
            [
                self.account_note,
                w.HTML("<b>Add a product</b>"),
                w.GridBox(
                    list(self.fields.values()),
                    layout=w.Layout(grid_template_columns="repeat(2, 360px)"),
                ),
                self.add_button,
                w.HTML("<b>Delete a product</b>"),
                w.HBox([self.delete_product, self.delete_button]),
                self.confirm_box,
                self.message,
            ]
        )

    def values(self) -> dict[str, Any]:
        """The product the form describes (empty optional texts left out)."""
        out = {name: widget.value for name, widget in self.fields.items()}
        return {k: v for k, v in out.items() if not (k == "product_icon" and v == "")}

    def add(self) -> pd.DataFrame:
        """Add the product in the form; the outcome shows below it and in ``last_result``."""
        self._check_writable()
        result = self.client.products.add(self.values(), errors="collect")
        self._done("add", result)
        return result

    def ask_delete(self) -> None:
        """Ask for confirmation before deleting the selected product."""
        self.pending_delete = str(self.delete_product.value or "")
        if not self.pending_delete:
            self.message.value = "Choose a product to delete."
            return
        self.confirm_box.layout.display = "flex"
        self.message.value = (
            f"Delete <code>{html.escape(self.pending_delete)}</code>? This cannot be undone."
        )

    def confirm_delete(self) -> pd.DataFrame | None:
        """Delete the product asked about; nothing happens without a pending request."""
        if not self.pending_delete:
            return None
        self._check_writable()
        target, self.pending_delete = self.pending_delete, ""
        self.confirm_box.layout.display = "none"
        result = self.client.products.delete([target], errors="collect")
        self._done("delete", result)
        return result

    def _check_writable(self) -> None:
        if not self.writable:
            raise PermissionError(
                f"product writes need the admin role; this account's role is {self.role!r}"
            )

    def cancel_delete(self) -> None:
        self.pending_delete = ""
        self.confirm_box.layout.display = "none"
        self.message.value = "Nothing deleted."

    def _done(self, action: str, result: pd.DataFrame) -> None:
        self.last_result = result
        row = result.iloc[0]
        pid = html.escape(str(row["product_id"]))
        if bool(row["ok"]):
            self.message.value = f"{action} <code>{pid}</code>: done."
            self._offer(str(row["product_id"]), action == "add")
        else:
            self.message.value = (
                f"{action} <code>{pid}</code> refused ({row['error_code']}): "
                f"{html.escape(str(row['error_msg']))}"
            )
        if self.on_write is not None:
            self.on_write(action, result)

    def _offer(self, product_id: str, present: bool) -> None:
        """Keep the delete chooser true to the platform: a product added here can be
        deleted next, and one deleted is no longer offered (a second delete was a 404)."""
        chosen = self.delete_product.value
        ids = [str(option) for option in self.delete_product.options if option != product_id]
        if present:
            ids = sorted([*ids, product_id])
        self.delete_product.options = ids
        self.delete_product.value = chosen if chosen in ids else (ids[0] if ids else None)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle = dict(self.widget._repr_mimebundle_())
        bundle["text/html"] = (
            "<p><em>The add/delete form works when the notebook runs in Jupyter.</em></p>"
        )
        return bundle
