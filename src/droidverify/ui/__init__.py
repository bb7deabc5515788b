"""Screens: uiautomator XML parsing, element selection and prompt descriptions."""

from droidverify.ui.describe import (
    DescribeFormat,
    Description,
    count_tokens,
    describe,
    describe_compressed,
    describe_html,
    describe_list,
    simple_token_count,
)
from droidverify.ui.element import Bounds, UIElement
from droidverify.ui.select import screen_size_of, select_elements
from droidverify.ui.tree import is_edit_class, parse_bounds, parse_xml

__all__ = [
    "Bounds",
    "DescribeFormat",
    "Description",
    "UIElement",
    "count_tokens",
    "describe",
    "describe_compressed",
    "describe_html",
    "describe_list",
    "is_edit_class",
    "parse_bounds",
    "parse_xml",
    "screen_size_of",
    "select_elements",
    "simple_token_count",
]
