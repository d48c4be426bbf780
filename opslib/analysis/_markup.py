"""Platform text made safe for the markup it is shown in (Markdown, plotly labels).

Every string the platform returns (codes, names, property keys, nick names...) is data a
user of the platform chose: put into Markdown or a plotly label as it is, ``<img src=x
onerror=...>`` would run in the report and in JupyterLab. These functions turn it into
text that shows exactly as it is and is never read as markup.
"""

from __future__ import annotations

import html
import re

__all__ = ["label_text", "markdown_text"]

# ASCII punctuation Markdown (CommonMark, GFM) may read as syntax; a backslash makes each
# literal. & < > become entities instead (no raw HTML, no entity tricks).
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|~:\"'=/$^@%])")


def markdown_text(value: object) -> str:
    """``value`` as Markdown that renders as exactly its text, on one line.

    Examples
    --------
    >>> markdown_text("<img src=x onerror=alert(1)>")
    '&lt;img src\\\\=x onerror\\\\=alert\\\\(1\\\\)&gt;'
    >>> markdown_text("F-01 *hot*")
    'F\\\\-01 \\\\*hot\\\\*'
    """
    text = " ".join(str(value).split())  # a newline would start another Markdown block
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", html.escape(text, quote=False))


def label_text(value: object) -> str:
    """``value`` for a plotly label (titles, ticks, legends, hover): plotly reads a few
    HTML tags and entities in them, so ``& < >`` become entities, which it shows as text.

    Examples
    --------
    >>> label_text("<b>F-01</b> & co")
    '&lt;b&gt;F-01&lt;/b&gt; &amp; co'
    """
    return html.escape(str(value), quote=False)
