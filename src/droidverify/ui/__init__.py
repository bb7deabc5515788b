"""Screens: uiautomator XML parsing, element selection and prompt descriptions."""

from droidverify.ui.element import Bounds, UIElement

__all__ = ["Bounds", "UIElement"]
