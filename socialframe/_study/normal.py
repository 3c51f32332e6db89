"""What an ad's copy and creatives are, once what changes on every call is taken away:
the values a study compares to tell a real edit from noise.

- a landing URL without its tracking parameters (:data:`TRACKING_PARAMS`, the one list)
  nor its fragment; the rest of its query stays, in its order;
- an image or video by the file name in its URL path: the CDN host and the signature
  query rotate from one answer to the next for the same file (a proxy of an outside
  image, whose query holds that image's URL, by that URL's file name);
- a text trimmed (the service sends some with spaces at the end), compared exactly;
- a dynamic ad (DCO, DPA: a template such as ``{{product.name}}`` in its body or title)
  by its template and the set of its cards' copy: the cards behind it come in any
  order, and the first card's copy (the frame's ``body_text``) is not an edit.

Example:
    >>> link("https://shop.example/p?id=7&utm_source=fb&fbclid=Iw1#top")
    'https://shop.example/p?id=7'
    >>> media(["https://scontent-3.example.net/v/t39/123_n.jpg?_nc_sig=ab&oe=1"])
    ['123_n.jpg']
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

#: Query parameters that track a click, not where it leads: a change in them is no edit.
#: Names are compared lower-cased; ``utm_`` is a prefix (utm_source, utm_campaign, ...).
TRACKING_PARAMS: Final = frozenset(
    {
        "fbclid",
        "gclid",
        "gbraid",
        "wbraid",
        "dclid",
        "msclkid",
        "ttclid",
        "twclid",
        "li_fat_id",
        "igshid",
        "mc_cid",
        "mc_eid",
        "_hsenc",
        "_hsmi",
        "yclid",
        "ref_src",
        "__tn__",
        "__cft__",
    }
)
TRACKING_PREFIXES: Final = ("utm_",)
#: The ad columns whose change is an edit (compared as this module says).
AD_FIELDS: Final = (
    "body_text",
    "title",
    "caption",
    "link_url",
    "cta_text",
    "image_urls",
    "video_urls",
)


def tracking(name: str) -> bool:
    """Whether a query parameter is one of :data:`TRACKING_PARAMS`."""
    lowered = name.lower()
    return lowered in TRACKING_PARAMS or lowered.startswith(TRACKING_PREFIXES)


def link(url: Any) -> str | None:
    """A landing URL without its tracking parameters and fragment (None if missing)."""
    if not isinstance(url, str):
        return None
    given: str = url.strip()
    if not given:
        return None
    try:
        parts = urlsplit(given)
    except ValueError:
        return given  # not a URL: compared as it is
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not tracking(k)]
    return urlunsplit((parts.scheme, parts.netloc.lower(), parts.path, urlencode(kept), ""))


def media(urls: Any) -> list[str]:
    """Images or videos by the file name in each URL's path, in order (missing ones out)."""
    if isinstance(urls, str):
        urls = [urls]
    elif not isinstance(urls, list | tuple) and not hasattr(urls, "tolist"):
        urls = []  # (missing)
    return [_name(url.strip()) for url in list(urls) if isinstance(url, str) and url.strip()]


def _name(url: str, depth: int = 0) -> str:
    """One image's or video's name (see :func:`media`).

    A proxy of an outside image (``.../safe_image.php?url=https://shop.example/a.jpg``)
    names it in a query parameter: that URL's name is the image's, or every image it
    shows would be one (``safe_image.php``). A path with no file name (``.../``) is
    its whole path, not an empty name every such URL would share.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if depth < 3:
        for _, value in parse_qsl(parts.query, keep_blank_values=True):
            if value.lower().startswith(("http://", "https://")):
                return _name(value, depth + 1)
    name = parts.path.rsplit("/", 1)[-1]
    return name or parts.path


def text(value: Any) -> str | None:
    """A text trimmed; empty is missing."""
    if not isinstance(value, str):
        return None
    return value.strip() or None


def comparable(ad: Mapping[str, Any]) -> dict[str, Any]:
    """The values of :data:`AD_FIELDS` as a study compares them (see the module).

    Args:
        ad: One ad as the study keeps it: the frame's columns and ``extra`` (JSON text
            of every other field, where the template and the cards of a dynamic ad are).
    """
    extra = _extra(ad.get("extra"))
    values: dict[str, Any] = {
        "body_text": text(ad.get("body_text")),
        "title": text(ad.get("title")),
        "caption": text(ad.get("caption")),
        "link_url": link(ad.get("link_url")),
        "cta_text": text(ad.get("cta_text")),
        "image_urls": sorted(media(ad.get("image_urls"))),
        "video_urls": sorted(media(ad.get("video_urls"))),
    }
    cards = extra.get("snapshot_cards")
    cards = [c for c in cards if isinstance(c, Mapping)] if isinstance(cards, list) else []
    for field, template, card_key in (
        ("body_text", "snapshot_body_text", "body"),
        ("title", "snapshot_title", "title"),
    ):
        # (the frame shows a dynamic ad's first card: which card is first is no edit)
        if isinstance(extra.get(template), str):
            copies = sorted(text(c.get(card_key)) or "" for c in cards)
            values[field] = json.dumps([text(extra[template]), copies])
    return values


def shown(ad: Mapping[str, Any], fields: list[str]) -> dict[str, Any]:
    """What an edit's ``previous`` / ``current`` say of ``fields``: each column's value,
    but a dynamic ad's templated text as it is compared, its template and the copy of
    its cards (its column holds the first card's copy alone, often the same before
    and after an edit of another card)."""
    extra = _extra(ad.get("extra"))
    cards = extra.get("snapshot_cards")
    cards = [c for c in cards if isinstance(c, Mapping)] if isinstance(cards, list) else []
    templates = {"body_text": ("snapshot_body_text", "body"), "title": ("snapshot_title", "title")}
    values: dict[str, Any] = {}
    for field in fields:
        template, card_key = templates.get(field, ("", ""))
        if template and isinstance(extra.get(template), str):
            copies = sorted(text(c.get(card_key)) or "" for c in cards)
            values[field] = {"template": extra[template], "cards": copies}
        else:
            values[field] = ad.get(field)
    return values


def _extra(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    if not isinstance(value, str):
        return {}
    try:
        loaded = json.loads(value)
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


def edited(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The fields of :data:`AD_FIELDS` whose comparable values differ, in that order."""
    before, after = comparable(old), comparable(new)
    return [field for field in AD_FIELDS if before[field] != after[field]]
