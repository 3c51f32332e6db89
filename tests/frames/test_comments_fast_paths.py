"""The comment builder's fast paths (``socialframe._frames.comments``) against the plain
rules they must equal: a permalink's ids read in one match for the whole column as the
general parser reads each, and the created times converted in numpy as row by row. The
builders as a whole, on hostile bodies: tests/frames/test_frames_fuzz.py."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from socialframe._frames import comments

# -- permalinks: the one-match path reads what the general parser reads ---------------------------

_PIECES = st.sampled_from(
    [
        "https://www.linkedin.com/feed/update/urn:li:activity:7384427202391592965",
        "?",
        "&",
        "commentUrn=",
        "replyUrn=",
        "dashCommentUrn=",
        "urn%3Ali%3Acomment%3A%28",
        "urn:li:comment:(",
        "activity",
        "ugcPost",
        "\u212a",  # the Kelvin sign: [A-Za-z] matches it only ignoring case
        "%3A",
        ":",
        "%2C",
        ",",
        "%29",
        ")",
        "7384427202391592965",
        "7411111960011936459",
        "\u0663\u0661",  # Arabic-Indic digits: \\d matches them
        "COMMENTURN=",
        "x",
    ]
)
_USUAL_LINK = (
    "https://www.linkedin.com/feed/update/urn:li:activity:1?commentUrn=urn%3Ali%3Acomment"
    "%3A%28activity%3A1%2C2%29&dashCommentUrn=urn%3Ali%3Afsd_comment%3A%282%2Curn%3Ali%3A"
    "activity%3A1%29"
)
_REPLY = "&replyUrn=urn%3Ali%3Acomment%3A%28activity%3A1%2C3%29&dashReplyUrn=x"


_QUERY = _USUAL_LINK.split("?")[1]
# The usual spelling with anything around it: before its "?" (a path holding
# "commentUrn=" or "replyUrn="), after it (a second replyUrn), or in its place.
_LINKS = (
    st.lists(_PIECES, max_size=14).map("".join)
    | st.tuples(
        st.lists(_PIECES.filter(lambda p: "?" not in p), max_size=4).map("".join),
        st.sampled_from(
            [
                _QUERY,
                _QUERY + _REPLY,
                _QUERY.replace("%3A", ":", 1),
                # a "replyUrn=" inside another parameter's value comes first
                _QUERY.replace("&dashCommentUrn=", "&dashCommentUrn=replyUrn=x") + _REPLY,
            ]
        ),
        st.lists(st.sampled_from([_REPLY, "&replyUrn=x", "replyUrn=", "&a=b"]), max_size=2),
    ).map(lambda t: f"{t[0]}?{t[1]}{''.join(t[2])}")
    | st.none()
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_LINKS, max_size=6))
def test_permalink_ids_in_one_match_equal_the_general_parser(links: list[str | None]) -> None:
    expected = [comments.ids_from_permalink(link) for link in links]
    posts, ids, parents = comments._ids(links)
    assert posts == [i.post_urn for i in expected]
    assert ids == [i.comment_id for i in expected]
    assert parents == [i.parent_comment_id for i in expected]


def test_permalink_ids_of_the_usual_spellings() -> None:
    assert comments._ids([_USUAL_LINK, _USUAL_LINK + _REPLY, None]) == (
        ["urn:li:activity:1", "urn:li:activity:1", None],
        ["2", "3", None],
        [None, "2", None],
    )


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.none()
            | st.integers(min_value=-(2**70), max_value=2**70)
            | st.integers(min_value=946_684_800_000, max_value=4_102_444_799_999)
            | st.sampled_from([0, 946_684_800_000, 4_102_444_800_000, "1760584641073", 1.5]),
            st.none() | st.sampled_from(["7411111960011936459", "12", "x", "9" * 30]),
        ),
        max_size=8,
    )
)
def test_created_times_in_numpy_equal_the_row_by_row_rule(rows: list[tuple[Any, Any]]) -> None:
    raw, ids = [r[0] for r in rows], [r[1] for r in rows]
    fast_unfit, slow_unfit = comments.Unfit(), comments.Unfit()
    fast = comments._created(raw, ids, fast_unfit)
    slow = [comments._created_ms(ms, i, slow_unfit) for ms, i in zip(raw, ids, strict=True)]
    got = [None if v is None or v == comments.NAT else int(v) for v in fast]
    assert got == slow
    assert fast_unfit.counts == slow_unfit.counts and fast_unfit.total == slow_unfit.total


def test_permalinks_after_a_known_prefix_are_checked_like_the_first() -> None:
    """The match after a prefix already seen must still find the first ``replyUrn=``:
    here one hides in another parameter's value, so the general parser reads no reply."""
    hidden = _USUAL_LINK.replace("&dashCommentUrn=", "&dashCommentUrn=replyUrn=x") + _REPLY
    for links in (
        [_USUAL_LINK, hidden],
        [_USUAL_LINK + _REPLY, hidden, _USUAL_LINK],
        [_USUAL_LINK, _USUAL_LINK + "&replyUrn=x" + _REPLY],
    ):
        expected = [comments.ids_from_permalink(link) for link in links]
        assert comments._ids(links) == (
            [i.post_urn for i in expected],
            [i.comment_id for i in expected],
            [i.parent_comment_id for i in expected],
        )
    assert comments.ids_from_permalink(hidden).parent_comment_id is None  # what the case is about
